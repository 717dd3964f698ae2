package dev.fencing.kubernetes;

import dev.fencing.jdbc.HeldTokens;
import dev.fencing.jdbc.issuer.AcquireOptions;
import dev.fencing.jdbc.issuer.TokenIssuer;
import dev.fencing.sql.ResourceName;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;

import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * fabric8's {@link LeaseLock} for its {@code LeaderElector}, with a fencing token for each leader: a token of the
 * driver's issuer ({@link TokenIssuer}) in the application's own database, written into the Lease (annotation
 * {@value #TOKEN_ANNOTATION}) by the very update that makes this candidate the holder. That update carries the
 * {@code resourceVersion} this candidate read (fabric8's {@code ResourceLock} sends it, and the API server refuses a
 * stale one), and the token was issued after that read, so each new leader's token is greater than every earlier
 * leader's; and since the issuer keeps its counter in the database, not in the Lease, the tokens keep rising when the
 * Lease is deleted and recreated (when its {@code leaseTransitions} starts again at 0).
 *
 * <pre>{@code
 * FencedLeaseLock lock = new FencedLeaseLock(namespace, "orders-leader", podName, "orders", issuer);
 * LeaderElectionConfig config = new LeaderElectionConfigBuilder().withLock(lock)
 *         .withLeaderCallbacks(lock.callbacks(new LeaderCallbacks(this::lead, this::stop, leader -> { })))
 *         ...
 * }</pre>
 *
 * While this candidate leads, {@link #lease()} is its token, and {@link #callbacks} holds it for the whole process
 * ({@link HeldTokens}) from just before {@code onStartLeading} to just after {@code onStopLeading}.
 */
public class FencedLeaseLock extends LeaseLock {
    /** The Lease annotation that carries the current leader's token (for people and tools; the lock reads its own). */
    public static final String TOKEN_ANNOTATION = "fencing.dev/token";
    private static final Logger LOG = Logger.getLogger(FencedLeaseLock.class.getName());

    private final String resource;
    private final TokenIssuer issuer;
    /** The Lease as the last {@code get} read it, or {@code null} when there was none. */
    private Lease seen;
    /** The token put into the update in progress, or 0. */
    private long pending;
    private volatile KubernetesLease held;
    private HeldTokens.Hold hold;

    /**
     * The Lease {@code namespace/name}, competed for as {@code identity}, fencing {@code resource} with tokens of
     * {@code issuer}.
     *
     * @throws IllegalArgumentException when {@code resource} is not a valid resource name
     */
    public FencedLeaseLock(String namespace, String name, String identity, String resource, TokenIssuer issuer) {
        super(namespace, name, identity);
        this.resource = ResourceName.require(resource);
        this.issuer = issuer;
    }

    /** The fencing resource. */
    public String resource() {
        return resource;
    }

    /**
     * The token of this candidate's leadership, as last written into the Lease.
     *
     * @throws IllegalStateException when this candidate does not hold the Lease (as far as its last write knows)
     */
    public KubernetesLease lease() {
        KubernetesLease lease = held;
        if (lease == null) {
            throw new IllegalStateException("fencing: '" + identity() + "' does not hold Lease " + describe()
                    + ": no token (resource '" + resource + "')");
        }
        return lease;
    }

    /**
     * {@code callbacks} with this lock's token held for the whole process while leading: the hold opens before
     * {@code onStartLeading} runs and closes after {@code onStopLeading} ran. Writers on any thread whose connections
     * name {@code fencing.token.source=dev.fencing.jdbc.HeldTokens} write with it.
     */
    public LeaderCallbacks callbacks(LeaderCallbacks callbacks) {
        Consumer<String> onNewLeader = callbacks::onNewLeader;
        return new LeaderCallbacks(() -> {
            startHold();
            callbacks.onStartLeading();
        }, () -> {
            try {
                callbacks.onStopLeading();
            } finally {
                stopHold();
            }
        }, onNewLeader);
    }

    private synchronized void startHold() {
        stopHold();
        KubernetesLease lease = held;   // written by update(), on the elector's thread, before onStartLeading
        if (lease == null) {
            // No token is held: writes are refused (ZF001) rather than made with a token that may not be ours.
            LOG.log(Level.WARNING, "fencing: leading on Lease " + describe() + " without a token");
            return;
        }
        hold = lease.holdForProcess();
    }

    private synchronized void stopHold() {
        if (hold != null) {
            hold.close();
            hold = null;
        }
    }

    @Override
    public synchronized LeaderElectionRecord get(KubernetesClient client) {
        seen = null;
        return super.get(client);
    }

    @Override
    protected LeaderElectionRecord toRecord(Lease lease) {
        seen = lease;
        return super.toRecord(lease);
    }

    /**
     * The Lease to write: fabric8's, plus the token when the record names this candidate as the holder: the token it
     * holds when the Lease read last still names it with that token (a renewal), else a new token of the issuer.
     */
    @Override
    protected Lease toResource(LeaderElectionRecord record, ObjectMetaBuilder meta) {
        Lease lease = super.toResource(record, meta);
        pending = 0;
        if (identity().equals(record.getHolderIdentity())) {
            long token = renewal();
            if (token == 0) {
                token = issue(record.getLeaseDuration());
            }
            pending = token;
            Map<String, String> annotations = lease.getMetadata().getAnnotations() == null ? new HashMap<>()
                    : new HashMap<>(lease.getMetadata().getAnnotations());
            annotations.put(TOKEN_ANNOTATION, Long.toString(token));
            lease.getMetadata().setAnnotations(annotations);
        }
        return lease;
    }

    @Override
    public synchronized void create(KubernetesClient client, LeaderElectionRecord record) {
        held = null;
        super.create(client, record);
        written(record);
    }

    @Override
    public synchronized void update(KubernetesClient client, LeaderElectionRecord record) {
        super.update(client, record);
        written(record);
    }

    /** After a successful write: this candidate leads with the pending token, or does not lead. */
    private void written(LeaderElectionRecord record) {
        if (identity().equals(record.getHolderIdentity()) && pending > 0) {
            held = new KubernetesLease(resource, pending, describe(), identity());
        } else {
            held = null;
        }
        pending = 0;
    }

    /** The token this candidate holds, when the Lease read last still names it with that token; else 0. */
    private long renewal() {
        KubernetesLease current = held;
        if (current == null || seen == null || seen.getSpec() == null
                || !identity().equals(seen.getSpec().getHolderIdentity())) {
            return 0;
        }
        Map<String, String> annotations = seen.getMetadata().getAnnotations();
        String written = annotations == null ? null : annotations.get(TOKEN_ANNOTATION);
        return Long.toString(current.token()).equals(written) ? current.token() : 0;
    }

    /** A new token: the issuer's next, under a holder name of its own (so it is never one handed out before). */
    private long issue(Duration ttl) {
        String holder = identity() + "/" + UUID.randomUUID();
        if (holder.length() > 200) {
            holder = holder.substring(holder.length() - 200);
        }
        try {
            return issuer.acquire(resource, holder, ttl == null || ttl.isZero() ? Duration.ofSeconds(15) : ttl,
                    AcquireOptions.DEFAULT.takeOver(true)).token();
        } catch (SQLException e) {
            throw new KubernetesClientException("fencing: no token for Lease " + describe() + " (resource '"
                    + resource + "'): " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
        }
    }
}
