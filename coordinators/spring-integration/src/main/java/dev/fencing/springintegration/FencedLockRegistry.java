package dev.fencing.springintegration;

import dev.fencing.jdbc.issuer.TokenIssuer;
import dev.fencing.sql.ResourceName;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import java.net.InetAddress;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * Spring Integration's {@link JdbcLockRegistry} with fenced locks: the same registry (local lock per key, polling,
 * time to live, renewal), over a lock repository whose rows are leases of the driver's token issuer
 * ({@link TokenIssuer}) in the application's own database. The lock key is the fencing resource, each new holder
 * gets the issuer's next token (greater than every token issued or accepted before for that key, never reused) in
 * the transaction that takes the lock, and the thread holding a {@link FencedLock} writes with that token: once a
 * holder has overrun its time to live and a later holder has written, its writes through {@code jdbc:fencing:} are
 * refused ({@code ZF002}).
 *
 * <pre>{@code
 * FencedLockRegistry registry = new FencedLockRegistry(TokenIssuer.forUrl(url, new Properties()));
 * registry.executeLocked("orders", () -> { ... writes through jdbc:fencing: ... });
 * }</pre>
 *
 * Lock keys must be valid resource names (1 to 200 characters from {@code A-Z a-z 0-9 _ . : / @ + = -}): unlike
 * {@code JdbcLockRegistry}, which stores a UUID of the key, the key itself names the resource.
 */
public class FencedLockRegistry implements ExpirableLockRegistry<FencedLock>, RenewableLockRegistry<FencedLock>,
        AutoCloseable {
    private final TokenIssuer issuer;
    private final IssuerLockRepository repository;
    private final Registry registry;

    /**
     * Locks on {@code issuer}'s leases, {@link JdbcLockRegistry#DEFAULT_TTL} (10 s) to live. The registry owns
     * {@code issuer}: {@link #close()} closes it.
     */
    public FencedLockRegistry(TokenIssuer issuer) {
        this(issuer, JdbcLockRegistry.DEFAULT_TTL);
    }

    /** Locks on {@code issuer}'s leases, {@code expireAfter} to live, held as {@code <host name>/<random>}. */
    public FencedLockRegistry(TokenIssuer issuer, Duration expireAfter) {
        this(issuer, expireAfter, hostName());
    }

    /** Locks on {@code issuer}'s leases, {@code expireAfter} to live, held as {@code <holderPrefix>/<random>}. */
    public FencedLockRegistry(TokenIssuer issuer, Duration expireAfter, String holderPrefix) {
        if (issuer == null || expireAfter == null || holderPrefix == null) {
            throw new IllegalArgumentException("fencing: a FencedLockRegistry needs an issuer, a time to live and a"
                    + " holder prefix");
        }
        this.issuer = issuer;
        this.repository = new IssuerLockRepository(issuer, holderPrefix + "/" + UUID.randomUUID());
        this.registry = new Registry(repository, expireAfter);
    }

    /**
     * The fenced lock of {@code lockKey}, a valid resource name.
     *
     * @throws IllegalArgumentException when {@code lockKey} is not a String or not a valid resource name
     */
    @Override
    public FencedLock obtain(Object lockKey) {
        if (!(lockKey instanceof String resource)) {
            throw new IllegalArgumentException("fencing: a lock key is a resource name (a String), not "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        return new FencedLock(resource, registry.obtain(resource), repository);
    }

    /** Sleep between two tries of a held lock (default 100 ms), as {@link JdbcLockRegistry#setIdleBetweenTries}. */
    public void setIdleBetweenTries(Duration idleBetweenTries) {
        registry.setIdleBetweenTries(idleBetweenTries);
    }

    /** Forgets the locks unused for {@code age} ms and not held in this process. */
    @Override
    public void expireUnusedOlderThan(long age) {
        registry.expireUnusedOlderThan(age);
    }

    /** Extends the lease of {@code lockKey}, held by this thread, for the registry's time to live; keeps its token. */
    @Override
    public void renewLock(Object lockKey) {
        registry.renewLock(lockKey);
    }

    /** Extends the lease of {@code lockKey}, held by this thread, for {@code ttl}; keeps its token. */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        registry.renewLock(lockKey, ttl);
    }

    /** The holder name this registry's leases carry in the lease table ({@code <prefix>/<random>}). */
    public String holder() {
        return repository.holder();
    }

    /**
     * Closes the issuer (the registry owns the issuer it was given; as a Spring bean, the context calls this at
     * shutdown). Leases still held stay in the table until they expire.
     */
    @Override
    public void close() throws SQLException {
        issuer.close();
    }

    @Override
    public String toString() {
        return "FencedLockRegistry{" + repository + "}";
    }

    private static String hostName() {
        try {
            String name = InetAddress.getLocalHost().getHostName();
            return name.length() > 100 ? name.substring(0, 100) : name;
        } catch (Exception e) {
            return "spring-integration";
        }
    }

    /** The registry itself, keyed by resource name instead of a UUID of the key. */
    private static final class Registry extends JdbcLockRegistry {
        Registry(IssuerLockRepository repository, Duration expireAfter) {
            super(repository, expireAfter);
        }

        @Override
        protected String pathFor(String key) {
            return ResourceName.require(key);
        }
    }
}
