/**
 * The JDBC wrappers that route every statement through the fence: the fenced connection, statements, result sets
 * and metadata (on pass-through halves generated at build time from the {@code java.sql} interfaces, made by
 * {@link dev.fencing.jdbc.wrapper.Wrappers}), the decide step ({@link dev.fencing.jdbc.wrapper.StatementRouter}) and
 * the run step ({@link dev.fencing.jdbc.wrapper.FencedExecution}). Not an API: classes here may change without
 * notice; nothing outside the driver's own entry points uses them.
 */
package dev.fencing.jdbc.wrapper;
