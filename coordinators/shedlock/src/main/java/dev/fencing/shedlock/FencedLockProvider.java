package dev.fencing.shedlock;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.issuer.Lease;
import dev.fencing.jdbc.issuer.LeaseUnavailableException;
import dev.fencing.jdbc.issuer.TokenIssuer;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

import java.net.InetAddress;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A ShedLock {@link LockProvider} whose locks are leases of the driver's token issuer ({@link TokenIssuer}): the
 * lock name is the fencing resource, {@code lockAtMostFor} the lease's time to live (expiry by the database clock),
 * and the task runs inside a {@link Fencing} scope with the lease's token. ShedLock runs a locked task on the
 * thread that took the lock, so every write the task makes through {@code jdbc:fencing:} carries the token, and is
 * refused ({@code ZF002}) once the task has overrun its lease and a later run elsewhere has written.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(DataSource fencedDataSource) throws SQLException {
 *     return new FencedLockProvider(TokenIssuer.forUrl(url, properties));
 * }
 * }</pre>
 *
 * Lock names must be valid resource names (1 to 200 characters from {@code A-Z a-z 0-9 _ . : / @ + = -}).
 * Each acquisition holds the lease under a holder name of its own ({@code host/random}), so two runs never share one.
 */
public class FencedLockProvider implements LockProvider {
    private static final Logger LOG = Logger.getLogger(FencedLockProvider.class.getName());
    private final TokenIssuer issuer;
    private final String holderPrefix;

    /** Leases from {@code issuer}, held as {@code <host name>/<random>}. */
    public FencedLockProvider(TokenIssuer issuer) {
        this(issuer, hostName());
    }

    /** Leases from {@code issuer}, held as {@code <holderPrefix>/<random>}. */
    public FencedLockProvider(TokenIssuer issuer, String holderPrefix) {
        this.issuer = issuer;
        this.holderPrefix = holderPrefix;
    }

    /**
     * Acquires the issuer's lease on the lock's name for {@code lockAtMostFor} and opens the token scope on this
     * thread; empty when another holder's lease is live.
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        String resource = configuration.getName();
        String holder = holderPrefix + "/" + UUID.randomUUID();
        Lease lease;
        try {
            lease = issuer.acquire(resource, holder, positive(configuration.getLockAtMostFor()));
        } catch (LeaseUnavailableException busy) {
            return Optional.empty();
        } catch (SQLException e) {
            throw new IllegalStateException("fencing: could not acquire the lease on '" + resource + "'", e);
        }
        return Optional.of(new FencedLock(lease, configuration.getLockAtLeastUntil(), lease.scope()));
    }

    private final class FencedLock implements SimpleLock {
        private final Lease lease;
        private final Instant lockAtLeastUntil;
        private final Fencing.Scope scope;

        FencedLock(Lease lease, Instant lockAtLeastUntil, Fencing.Scope scope) {
            this.lease = lease;
            this.lockAtLeastUntil = lockAtLeastUntil;
            this.scope = scope;
        }

        /**
         * Ends the token scope, then frees the lease, or keeps it until {@code lockAtLeastFor} has passed. A lease
         * already lost (expired and taken by a later run) is left as it is.
         */
        @Override
        public void unlock() {
            scope.close();
            try {
                Duration atLeast = Duration.between(Instant.now(), lockAtLeastUntil);
                if (atLeast.toMillis() > 0) {
                    issuer.renew(lease, atLeast);
                } else {
                    issuer.release(lease);
                }
            } catch (SQLException e) {
                LOG.log(Level.INFO, "fencing: lease on '" + lease.resource() + "' (token " + lease.token()
                        + ") was no longer held at unlock: " + e.getMessage());
            }
        }

        /** Extends the lease to {@code lockAtMostFor} from now; empty when it was lost. */
        @Override
        public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            try {
                Lease renewed = issuer.renew(lease, positive(lockAtMostFor));
                return Optional.of(new FencedLock(renewed, Instant.now().plus(lockAtLeastFor), scope));
            } catch (SQLException lost) {
                return Optional.empty();
            }
        }
    }

    private static Duration positive(Duration duration) {
        return duration.toMillis() > 0 ? duration : Duration.ofMillis(1);
    }

    private static String hostName() {
        try {
            String name = InetAddress.getLocalHost().getHostName();
            return name.length() > 100 ? name.substring(0, 100) : name;
        } catch (Exception e) {
            return "shedlock";
        }
    }
}
