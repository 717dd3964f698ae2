/**
 * The guard protocol, on the strength of what the server says (SPEC C9): the epoch row's lock and advance
 * ({@link dev.fencing.jdbc.guard.EpochGuard}), the session fence, the server's transaction state, the fence tables'
 * schema and protection, never-issued tokens, and the catalog's answers (may a function write, is a table exempt or
 * a temporary table of the session). Not an API: the public classes here are seams for the wrappers and the token
 * issuer and may change without notice.
 */
package dev.fencing.jdbc.guard;
