/**
 * A small billing application written the way JDBC code was written before 2015 (DriverManager, try/finally,
 * string-built SQL in batch jobs, manual transactions), run unchanged through the fencing driver by swapping its
 * URL. It knows nothing about fencing.
 */
package dev.fencing.legacy;
