/**
 * The side-by-side harness: the raw JDBC driver and the same database through {@code jdbc:fencing:}, both behind
 * HikariCP, measured in the same run on the same data, alternating, after warm-up.
 */
package dev.fencing.bench;
