/**
 * Fenced locks for Spring Integration: {@link dev.fencing.springintegration.FencedLockRegistry} is a
 * {@code JdbcLockRegistry} whose lock rows are leases of the driver's token issuer, and whose lock holder writes with
 * the lease's token, so a holder that overran its time to live is refused once a later holder has written. See
 * docs/spring-integration.md.
 */
package dev.fencing.springintegration;
