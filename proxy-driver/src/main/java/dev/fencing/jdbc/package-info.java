/**
 * The public face of the fencing driver: the {@code jdbc:fencing:} {@link java.sql.Driver}, a
 * {@link javax.sql.DataSource}, the thread-scoped token API ({@link dev.fencing.jdbc.Fencing}), the
 * per-connection API ({@link dev.fencing.jdbc.FencedConnection}), pluggable token sources and the SQLStates
 * of every refusal.
 */
package dev.fencing.jdbc;
