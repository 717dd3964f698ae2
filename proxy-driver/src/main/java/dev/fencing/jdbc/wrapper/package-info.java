/**
 * The fencing driver's machinery that is not configuration or audit: the epoch guard protocol and the JDBC
 * wrappers that route every statement through it. Not an API: classes here may change without notice.
 */
package dev.fencing.jdbc.wrapper;
