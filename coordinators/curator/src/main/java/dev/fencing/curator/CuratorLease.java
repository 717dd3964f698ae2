package dev.fencing.curator;

import dev.fencing.jdbc.FencingLease;

/**
 * One holder's acquisition of a Curator lock or leader latch, as the fence sees it: {@link #scope()} fences this
 * thread's writes with it, {@link #holdForProcess()} every thread's.
 *
 * @param resource the fencing resource the lock protects
 * @param token    the {@code czxid} of the holder's own lock node
 * @param lockNode the lock node's path (within the client's namespace)
 */
public record CuratorLease(String resource, long token, String lockNode) implements FencingLease {
    /** The leader epoch of the ZooKeeper ensemble that created the lock node (the token's high 32 bits). */
    public long epoch() {
        return token >>> 32;
    }
}
