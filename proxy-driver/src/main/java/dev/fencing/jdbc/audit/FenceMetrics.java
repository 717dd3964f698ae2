package dev.fencing.jdbc.audit;

import dev.fencing.jdbc.FenceMXBean;
import dev.fencing.jdbc.FencingRefusedException;

import javax.management.JMException;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one resource's fence in this JVM, registered as a {@link FenceMXBean} on first use (and as
 * Micrometer meters when Micrometer is on the class path, see {@link MicrometerMeters}), and the log lines (logger
 * {@code dev.fencing.jdbc}) for every refusal and every epoch advance.
 */
public final class FenceMetrics implements FenceMXBean {
    /** The name of the logger every refusal and advance is logged to. */
    public static final String LOGGER = "dev.fencing.jdbc";
    private static final System.Logger LOG = System.getLogger(LOGGER);
    private static final Map<String, FenceMetrics> RESOURCES = new ConcurrentHashMap<>();
    /** Whether Micrometer is on the driver's class path; its classes are never loaded when it is not. */
    private static final boolean MICROMETER = present("io.micrometer.core.instrument.MeterRegistry");

    private final String resource;
    private final LongAdder guarded = new LongAdder();
    private final Map<String, LongAdder> refusals = new ConcurrentHashMap<>();
    private final LongAdder advances = new LongAdder();
    private final LongAdder epochLocks = new LongAdder();
    private final LongAdder epochLockNanos = new LongAdder();
    private final LongAdder sessionRegistrations = new LongAdder();
    private final LongAdder sessionFallbacks = new LongAdder();
    /** The highest mark seen; 0 before any. */
    private final AtomicLong mark = new AtomicLong();

    private FenceMetrics(String resource) {
        this.resource = resource;
    }

    /**
     * How many resources get counters (and an MBean) of their own; the ones after share {@link #OTHERS}, so an
     * application that makes up resource names (per tenant, per job run) cannot grow the registry without bound.
     */
    static final int MAX_RESOURCES = 1024;
    /** The name under which the resources past {@link #MAX_RESOURCES} are counted together. */
    static final String OTHERS = "(other resources)";

    /**
     * The counters of {@code resource}, registered with the platform MBeanServer the first time; past
     * {@link #MAX_RESOURCES} distinct resources, the shared counters of {@link #OTHERS}.
     */
    public static FenceMetrics of(String resource) {
        return of(resource, MAX_RESOURCES);
    }

    /** {@link #of(String)} with {@code max} resources of their own (tests). */
    static FenceMetrics of(String resource, int max) {
        FenceMetrics metrics = RESOURCES.get(resource);
        if (metrics != null) {
            return metrics;
        }
        if (RESOURCES.size() >= max) {
            resource = OTHERS;
        }
        return RESOURCES.computeIfAbsent(resource, r -> {
            FenceMetrics created = new FenceMetrics(r);
            created.register();
            if (MICROMETER) {
                MicrometerMeters.bind(created);
            }
            return created;
        });
    }

    /** Every resource's counters so far (for binding a Micrometer registry late). */
    static Collection<FenceMetrics> all() {
        return RESOURCES.values();
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, FenceMetrics.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    /** Whether this copy of the driver found Micrometer and binds its meters. */
    public static boolean micrometerBound() {
        return MICROMETER;
    }

    /** {@code dev.fencing:type=Fence,resource=<name>}, the name quoted when it holds a character JMX reserves. */
    static ObjectName objectName(String resource) throws JMException {
        boolean plain = resource.chars().noneMatch(c -> ",=:\"*?".indexOf(c) >= 0);
        return new ObjectName("dev.fencing:type=Fence,resource=" + (plain ? resource : ObjectName.quote(resource)));
    }

    private void register() {
        try {
            ManagementFactory.getPlatformMBeanServer().registerMBean(this, objectName(resource));
        } catch (JMException | RuntimeException e) {
            // Another copy of the driver (another class loader) may hold the name: counting goes on without JMX.
            LOG.log(System.Logger.Level.DEBUG, "fencing: JMX registration for resource ''{0}'' failed: {1}",
                    resource, e);
        }
    }

    /** A guarded mutation ran at {@code token}, which is now the mark; a token above every mark seen is an advance. */
    public void guarded(long token) {
        guarded.increment();
        if (token <= mark.get()) {
            return; // the common case, same-epoch writers: no write to the shared mark
        }
        long previous = mark.getAndAccumulate(token, Math::max);
        if (token > previous && previous > 0) {
            advances.increment();
            LOG.log(System.Logger.Level.INFO, "fencing: resource ''{0}'' advanced to epoch {1} (was {2})",
                    resource, Long.toString(token), Long.toString(previous));
        }
    }

    /**
     * The epoch row was locked (or the mark raised) by a statement of its own, which took {@code nanos}: the
     * time spent waiting for writers of the old epoch, or for an advance, to end, plus one round trip.
     */
    public void epochLocked(long nanos) {
        epochLocks.increment();
        epochLockNanos.add(nanos);
    }

    /**
     * The token issuer raised the mark from {@code previous} to {@code token} itself (immediate revocation),
     * without a mutation: an advance like any other, for the counts and the log.
     */
    public void established(long token, long previous) {
        mark.accumulateAndGet(token, Math::max);
        if (token > previous) {
            advances.increment();
            LOG.log(System.Logger.Level.INFO, "fencing: resource ''{0}'' advanced to epoch {1} (was {2}) by the"
                    + " token issuer (immediate revocation)", resource, Long.toString(token), Long.toString(previous));
        }
    }

    /**
     * The session fence registered a connection's server session at {@code token}; {@code failuresBefore}: idle points
     * in a row at which its registration had failed (then the return to the fast path is logged too).
     */
    public void sessionRegistered(long token, int failuresBefore) {
        sessionRegistrations.increment();
        if (failuresBefore > 0) {
            LOG.log(System.Logger.Level.INFO, "fencing: resource ''{0}'': the session fence registered a connection at"
                    + " token {1} after {2} failed attempt(s); its writes go untouched again", resource,
                    Long.toString(token), Integer.toString(failuresBefore));
        }
    }

    /**
     * Tables mapped in {@code table} that the database no longer has under their mapped names ({@code missing}):
     * renamed or dropped after {@code fencing map}. Logged once per JVM and set; until the map is mended, every
     * data change needs every mapped resource (SPEC C11).
     */
    public static void mappedTablesMissing(String table, String missing) {
        LOG.log(System.Logger.Level.WARNING, "fencing: the resource table {0} maps tables the database does not have"
                + " (renamed or dropped?): {1}. Until the map is mended (fencing unmap the old name, fencing map the"
                + " new one), every data change needs a token for every mapped resource", table, missing);
    }

    /**
     * The connection's database role may change the resource table {@code table} (SPEC C11): logged once per JVM,
     * table and role, since a client of that role outside the driver could remove a mapping.
     */
    public static void resourceTableWritable(String table, String role) {
        LOG.log(System.Logger.Level.WARNING, "fencing: role {0} may change the resource table {1} (insert, update,"
                + " delete, truncate or drop): the driver refuses such writes, but another client of this role could"
                + " remove a mapping. Give the application role SELECT only on it (docs/resources.md#privileges)",
                role, table);
    }

    /**
     * A connection whose settings pin resource {@code pinned} runs statements for {@code named} instead, set by
     * {@code by} (a thread's scope, {@code SET fencing.resource}, client info): logged once per connection and name,
     * since unmapped tables are then fenced for {@code named}, not for the resource the URL names (SPEC C11).
     */
    public static void resourceOverridden(String pinned, String named, String by) {
        LOG.log(System.Logger.Level.INFO, "fencing: the connection''s settings pin resource ''{0}'', but {1} names"
                + " ''{2}'': its writes to unmapped tables are fenced for ''{2}''; tables mapped to ''{0}'' still need a"
                + " token for ''{0}''", pinned, by, named);
    }

    /**
     * The session fence gave up registering a connection at {@code token} at one idle point, for a transient
     * {@code cause}: the statement guard serves its writes until a later idle point, {@code retryMillis} from now at
     * the earliest, registers it. Counted every time; logged at the first of a run of failures ({@code failures} 1),
     * so that the fast path cannot disappear unnoticed, nor flood the log.
     */
    public void sessionFellBack(long token, java.sql.SQLException cause, int failures, long retryMillis) {
        sessionFallbacks.increment();
        if (failures == 1) {
            LOG.log(System.Logger.Level.WARNING, "fencing: resource ''{0}'': the session fence could not register a"
                            + " connection at token {1} (sqlState={2}: {3}); the statement guard serves its writes"
                            + " until a registration at a later idle point succeeds (next try in {4} ms)", resource,
                    Long.toString(token), cause == null ? "none" : cause.getSQLState(),
                    cause == null ? "" : cause.getMessage(), Long.toString(retryMillis));
        }
    }

    /**
     * A refusal of a statement (its shape, without values); {@code refused}: thrown, otherwise run unguarded in
     * audit mode.
     */
    void refused(FencingRefusedException refusal, String shape, boolean refused) {
        refusals.computeIfAbsent(refusal.getSQLState(), s -> new LongAdder()).increment();
        if (refusal.getHighWaterMark() > 0) {
            mark.accumulateAndGet(refusal.getHighWaterMark(), Math::max);
        }
        LOG.log(refused ? System.Logger.Level.WARNING : System.Logger.Level.INFO, "fencing: {0} resource={1} token={2} mark={3} sqlState={4} reason={5}"
                        + " statement={6}", refused ? "refused" : "would refuse (audit mode, ran unguarded)", resource,
                refusal.getToken() > 0 ? Long.toString(refusal.getToken()) : "none",
                refusal.getHighWaterMark() >= 0 ? Long.toString(refusal.getHighWaterMark()) : "unknown",
                refusal.getSQLState(), refusal.getReason(), shape);
    }

    @Override
    public String getResource() {
        return resource;
    }

    @Override
    public long getMutationsGuarded() {
        return guarded.sum();
    }

    @Override
    public long getRefusals() {
        long total = 0;
        for (LongAdder count : refusals.values()) {
            total += count.sum();
        }
        return total;
    }

    @Override
    public Map<String, Long> getRefusalsBySqlState() {
        Map<String, Long> counts = new TreeMap<>();
        for (String state : dev.fencing.jdbc.FencingSqlState.ALL) {
            counts.put(state, 0L); // every one of the fence's own states, refused or not yet (docs/operations.md)
        }
        refusals.forEach((state, count) -> counts.put(state, count.sum()));
        return counts;
    }

    @Override
    public long getEpochAdvances() {
        return advances.sum();
    }

    @Override
    public long getEpochLocks() {
        return epochLocks.sum();
    }

    @Override
    public long getEpochLockWaitNanos() {
        return epochLockNanos.sum();
    }

    /** Refusals with {@code sqlState} so far. */
    long refusals(String sqlState) {
        LongAdder count = refusals.get(sqlState);
        return count == null ? 0 : count.sum();
    }

    @Override
    public long getSessionRegistrations() {
        return sessionRegistrations.sum();
    }

    @Override
    public long getSessionFallbacks() {
        return sessionFallbacks.sum();
    }

    @Override
    public long getCurrentMark() {
        return mark.get();
    }
}
