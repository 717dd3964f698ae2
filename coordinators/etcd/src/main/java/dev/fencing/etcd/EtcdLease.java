package dev.fencing.etcd;

import dev.fencing.jdbc.FencingLease;

/**
 * One holder's acquisition of an etcd lock, as the fence sees it: {@link #scope()} fences this thread's writes with
 * it, {@link #holdForProcess()} every thread's.
 *
 * @param resource     the fencing resource the lock protects
 * @param token        the {@code create_revision} of the holder's own lock key
 * @param lockKey      the lock key ({@code <name>/<lease id in hex>})
 * @param leaseId      the etcd lease the lock key is attached to
 * @param readRevision the cluster's revision when the token was read (at least {@code token})
 */
public record EtcdLease(String resource, long token, String lockKey, long leaseId, long readRevision)
        implements FencingLease {
}
