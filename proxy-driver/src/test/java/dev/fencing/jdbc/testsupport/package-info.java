/**
 * Hand-written stub JDBC objects shared by the unit tests and the JMH benchmarks (HikariCP's {@code StubConnection}
 * is the model): a connection to no database whose statements record what was sent and answer what a test tells
 * them to ({@link dev.fencing.jdbc.testsupport.Answer}), and a {@code jdbc:stub:} driver that hands them out.
 */
package dev.fencing.jdbc.testsupport;
