/**
 * Configuration and token sources: the parsed {@code fencing.*} settings of one connection ({@link
 * dev.fencing.jdbc.config.Settings}, defined by {@link dev.fencing.jdbc.FencingProperty}) and where a statement's
 * resource and token come from (scope, {@code SET fencing.token}, token file, connection setting). Not an API: the
 * public classes here are seams for the driver's own packages and may change without notice.
 */
package dev.fencing.jdbc.config;
