package dev.fencing.springintegration;

import dev.fencing.jdbc.issuer.Lease;
import org.springframework.integration.support.locks.DistributedLock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * A lock of {@link FencedLockRegistry}: {@code JdbcLockRegistry}'s lock, and while this thread holds it, a token
 * scope ({@link dev.fencing.jdbc.Fencing#scope}) with its lease's token, so every write this thread makes through
 * {@code jdbc:fencing:} to the lock's resource is fenced. {@link #unlock()} ends the scope, then frees the lease (and
 * throws {@code ConcurrentModificationException}, as {@code JdbcLockRegistry} does, when the lease had expired and
 * been taken meanwhile). Re-entrant: each nested {@code lock()} opens a scope that its {@code unlock()} closes.
 */
public final class FencedLock implements DistributedLock {
    private final String resource;
    private final DistributedLock delegate;
    private final IssuerLockRepository repository;

    FencedLock(String resource, DistributedLock delegate, IssuerLockRepository repository) {
        this.resource = resource;
        this.delegate = delegate;
        this.repository = repository;
    }

    /** The fencing resource: the lock key. */
    public String resource() {
        return resource;
    }

    /**
     * The lease this thread holds: its token, holder and expiry. Hand it to other threads with
     * {@code lease().holdForProcess()} or {@code Fencing.scope(lease.resource(), lease.token())}.
     *
     * @throws IllegalMonitorStateException when this thread does not hold the lock
     */
    public Lease lease() {
        Lease lease = repository.heldByCurrentThread(resource);
        if (lease == null) {
            throw new IllegalMonitorStateException("fencing: this thread does not hold the lock on '" + resource
                    + "'");
        }
        return lease;
    }

    /**
     * {@link #lock()}, as a resource for try-with-resources: closing it unlocks. Prefer it to {@code lock()} with
     * {@code unlock()} in a {@code finally}: when the holder overran its lease, the refusal of its write
     * ({@code ZF002}) stays the exception thrown, and the unlock's {@code ConcurrentModificationException} is added
     * to it as suppressed instead of replacing it.
     */
    public Locked locked() {
        lock();
        return new Locked(this);
    }

    /** A lock taken by {@link #locked()}; {@link #close()} unlocks it once. */
    public static final class Locked implements AutoCloseable {
        private final FencedLock lock;
        private boolean closed;

        private Locked(FencedLock lock) {
            this.lock = lock;
        }

        /** The lease of this hold: its resource, token, holder and expiry. */
        public Lease lease() {
            return lock.lease();
        }

        /** Unlocks, once ({@link FencedLock#unlock()}). */
        @Override
        public void close() {
            if (!closed) {
                closed = true;
                lock.unlock();
            }
        }
    }

    @Override
    public void lock() {
        delegate.lock();
        entered();
    }

    @Override
    public void lock(Duration ttl) {
        delegate.lock(ttl);
        entered();
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        delegate.lockInterruptibly();
        entered();
    }

    @Override
    public boolean tryLock() {
        return delegate.tryLock() && entered();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return delegate.tryLock(time, unit) && entered();
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        return delegate.tryLock(waitTime, ttl) && entered();
    }

    /**
     * Ends this thread's token scope, then unlocks ({@code JdbcLockRegistry}: frees the lease at the outermost
     * unlock; {@code ConcurrentModificationException} when the lease had been lost).
     */
    @Override
    public void unlock() {
        repository.exit(resource);
        delegate.unlock();
    }

    /** Not supported, as in {@code JdbcLockRegistry}. */
    @Override
    public Condition newCondition() {
        return delegate.newCondition();
    }

    private boolean entered() {
        try {
            repository.enter(resource);
            return true;
        } catch (RuntimeException e) {
            delegate.unlock();
            throw e;
        }
    }

    @Override
    public String toString() {
        return "FencedLock{" + resource + "}";
    }
}
