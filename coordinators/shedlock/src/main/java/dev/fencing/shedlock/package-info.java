/**
 * A ShedLock {@code LockProvider} on the driver's token issuer: the lock of a {@code @SchedulerLock} task is an issuer
 * lease in the application's own database, and the task runs inside a thread scope with the lease's token, so its
 * writes through {@code jdbc:fencing:} are fenced with no change to its code. See docs/shedlock.md.
 */
package dev.fencing.shedlock;
