/**
 * Fencing tokens from Redisson's {@code RFencedLock} ({@code lockAndGetToken}): the holder's writes through
 * {@code jdbc:fencing:} carry the lock's token, an acquisition check detects a Redis counter that went back (lost
 * on a restart, a flush or a failover), and a rebase puts it above the database's mark again. See docs/redisson.md.
 */
package dev.fencing.redisson;
