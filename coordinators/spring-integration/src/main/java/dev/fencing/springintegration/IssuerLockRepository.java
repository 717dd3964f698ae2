package dev.fencing.springintegration;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.issuer.Lease;
import dev.fencing.jdbc.issuer.LeaseLostException;
import dev.fencing.jdbc.issuer.LeaseStatus;
import dev.fencing.jdbc.issuer.LeaseUnavailableException;
import dev.fencing.jdbc.issuer.TokenIssuer;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.integration.jdbc.lock.LockRepository;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link LockRepository} whose lock rows are leases of the driver's token issuer: the lock key is the fencing
 * resource, this repository's client id the holder, and each new acquisition gets the issuer's next token in the
 * same transaction that takes the lock. {@link org.springframework.integration.jdbc.lock.JdbcLockRegistry} calls it
 * only from the thread that holds the key's local lock, so the lease of a key is read and changed by one thread at a
 * time. Used by {@link FencedLockRegistry}, which names keys as resources and opens the token scopes.
 */
final class IssuerLockRepository implements LockRepository {
    private final TokenIssuer issuer;
    private final String holder;
    /** The lease this process holds, by resource. */
    private final Map<String, Lease> held = new ConcurrentHashMap<>();
    /** The token scopes open on the holding thread, by resource, innermost first (one per re-entrant lock). */
    private final Map<String, Deque<Entered>> entered = new ConcurrentHashMap<>();

    /** One lock() of the thread that holds the key: its token scope. */
    private record Entered(Thread thread, Fencing.Scope scope) {
    }

    IssuerLockRepository(TokenIssuer issuer, String holder) {
        this.issuer = issuer;
        this.holder = holder;
    }

    /** The lease this process holds on {@code resource}, or {@code null}. */
    Lease lease(String resource) {
        return held.get(resource);
    }

    /**
     * Opens the token scope of this process's lease on {@code resource} on the calling thread, which has just locked
     * it (the registry's local lock is held, so no other thread of the process touches this resource's entries).
     *
     * @throws IllegalStateException when this process holds no lease on {@code resource}
     */
    void enter(String resource) {
        Lease lease = held.get(resource);
        if (lease == null) {
            throw new IllegalStateException("fencing: the lock on '" + resource + "' is held without a lease");
        }
        entered.computeIfAbsent(resource, r -> new ArrayDeque<>())
                .push(new Entered(Thread.currentThread(), lease.scope()));
    }

    /**
     * Closes the innermost token scope of {@code resource} when the calling thread opened it; false (nothing closed)
     * when it did not, i.e. this thread does not hold the lock.
     */
    boolean exit(String resource) {
        Deque<Entered> scopes = entered.get(resource);
        if (scopes == null || scopes.isEmpty() || scopes.peek().thread() != Thread.currentThread()) {
            return false;
        }
        scopes.pop().scope().close();
        if (scopes.isEmpty()) {
            entered.remove(resource);
        }
        return true;
    }

    /** The lease on {@code resource} when the calling thread holds its lock, else {@code null}. */
    Lease heldByCurrentThread(String resource) {
        Deque<Entered> scopes = entered.get(resource);
        if (scopes == null || scopes.isEmpty() || scopes.peek().thread() != Thread.currentThread()) {
            return null;
        }
        return held.get(resource);
    }

    String holder() {
        return holder;
    }

    /**
     * Takes the lease for {@code ttl} (database clock); this holder's own live lease is extended and keeps its
     * token (a re-entrant acquisition); false while another holder's lease is live.
     */
    @Override
    public boolean acquire(String resource, Duration ttl) {
        try {
            held.put(resource, issuer.acquire(resource, holder, positive(ttl)));
            return true;
        } catch (LeaseUnavailableException busy) {
            return false;
        } catch (SQLException e) {
            throw failure("acquire", resource, e);
        }
    }

    /** Extends this holder's lease; false when it was lost (released, taken over, or a newer token was accepted). */
    @Override
    public boolean renew(String resource, Duration ttl) {
        Lease lease = held.get(resource);
        if (lease == null) {
            return false;
        }
        try {
            held.put(resource, issuer.renew(lease, positive(ttl)));
            return true;
        } catch (LeaseLostException lost) {
            return false;
        } catch (SQLException e) {
            throw failure("renew", resource, e);
        }
    }

    /**
     * Frees this holder's lease (its issued mark stays, so the next holder's token is greater); false when the lease
     * had been lost already, which {@code JdbcLockRegistry} reports as a {@code ConcurrentModificationException}.
     */
    @Override
    public boolean delete(String resource) {
        Lease lease = held.get(resource);
        if (lease == null) {
            return false;
        }
        try {
            boolean released = issuer.release(lease);
            held.remove(resource);          // after the answer: a transient failure is tried again with the lease
            return released;
        } catch (SQLException e) {
            throw failure("release", resource, e);
        }
    }

    /** Whether this holder's lease on {@code resource} is live by the database clock. */
    @Override
    public boolean isAcquired(String resource) {
        Lease lease = held.get(resource);
        if (lease == null) {
            return false;
        }
        try {
            for (LeaseStatus status : issuer.status()) {
                if (status.resource().equals(resource)) {
                    return status.live() && holder.equals(status.holder()) && status.issued() == lease.token()
                            && status.highWaterMark() <= lease.token();
                }
            }
            return false;
        } catch (SQLException e) {
            throw failure("read", resource, e);
        }
    }

    /**
     * Does nothing: an expired lease needs no cleaning (the next acquisition takes it over), and its row must stay,
     * since it keeps the issued mark that makes every later token greater.
     */
    @Override
    public void deleteExpired() {
    }

    /** Does nothing: the issuer belongs to the application, which closes it. */
    @Override
    public void close() {
    }

    private static Duration positive(Duration ttl) {
        return ttl.toMillis() > 0 ? ttl : Duration.ofMillis(1);
    }

    /**
     * A failure of the lease table as {@code JdbcLockRegistry} understands it: a transaction rolled back by the
     * database (SQLState class 40: serialization failure, deadlock) is transient, which the registry tries again;
     * anything else ends the lock attempt ({@code CannotAcquireLockException}).
     */
    private static RuntimeException failure(String what, String resource, SQLException e) {
        String message = "fencing: could not " + what + " the lease on '" + resource + "': " + e.getMessage()
                + " (SQLState " + e.getSQLState() + ")";
        if (e.getSQLState() != null && e.getSQLState().startsWith("40")) {
            return new TransientDataAccessResourceException(message, e);
        }
        return new IllegalStateException(message, e);
    }

    @Override
    public String toString() {
        return "IssuerLockRepository{holder=" + holder + ", leaseTable=" + issuer.leaseTable() + "}";
    }
}
