package dev.fencing.redisson;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingLease;
import org.redisson.api.RFencedLock;

/**
 * One acquisition of a Redisson {@link RFencedLock} by the current thread, with its token in force on this thread
 * (a {@link Fencing} scope opened at acquisition). {@link #close()} ends the scope, then unlocks; close it on the
 * thread that acquired it, as Redisson requires.
 */
public final class RedissonLease implements FencingLease, AutoCloseable {
    private final RFencedLock lock;
    private final String resource;
    private final long token;
    private final Fencing.Scope scope;
    private boolean closed;

    RedissonLease(RFencedLock lock, String resource, long token) {
        this.lock = lock;
        this.resource = resource;
        this.token = token;
        this.scope = Fencing.scope(resource, token);
    }

    @Override
    public String resource() {
        return resource;
    }

    @Override
    public long token() {
        return token;
    }

    /** The lock this lease holds. */
    public RFencedLock lock() {
        return lock;
    }

    /**
     * Ends this lease's scope and unlocks. A lock whose lease time ran out (or that Redis lost) is no longer this
     * thread's; unlocking it then does nothing (the fence already refuses this token once a newer holder wrote).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        scope.close();
        if (lock.isHeldByCurrentThread()) {
            try {
                lock.unlock();
            } catch (IllegalMonitorStateException expired) {
                // the lease time ran out between the check and the unlock
            }
        }
    }

    @Override
    public String toString() {
        return "Redisson lease " + lock.getName() + " for " + resource + "@" + token;
    }
}
