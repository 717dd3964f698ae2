/**
 * Classifies SQL text (read-only, mutation, transaction control, settings, or cannot be guarded) and
 * rewrites mutations into epoch-guarded SQL. Pure library: JSqlParser only, no JDBC.
 */
package dev.fencing.sql;
