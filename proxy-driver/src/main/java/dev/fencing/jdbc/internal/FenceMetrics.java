package dev.fencing.jdbc.internal;

import dev.fencing.jdbc.FenceMXBean;
import dev.fencing.jdbc.FencingRefusedException;

import javax.management.JMException;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one resource's fence in this JVM, registered as a {@link FenceMXBean} on first use, and the log
 * lines (logger {@code dev.fencing.jdbc}) for every refusal and every epoch advance.
 */
final class FenceMetrics implements FenceMXBean {
    static final String LOGGER = "dev.fencing.jdbc";
    private static final System.Logger LOG = System.getLogger(LOGGER);
    private static final Map<String, FenceMetrics> RESOURCES = new ConcurrentHashMap<>();

    private final String resource;
    private final LongAdder guarded = new LongAdder();
    private final Map<String, LongAdder> refusals = new ConcurrentHashMap<>();
    private final LongAdder advances = new LongAdder();
    /** The highest mark seen; 0 before any. */
    private final AtomicLong mark = new AtomicLong();

    private FenceMetrics(String resource) {
        this.resource = resource;
    }

    /** The counters of {@code resource}, registered with the platform MBeanServer the first time. */
    static FenceMetrics of(String resource) {
        FenceMetrics metrics = RESOURCES.get(resource);
        if (metrics != null) {
            return metrics;
        }
        return RESOURCES.computeIfAbsent(resource, r -> {
            FenceMetrics created = new FenceMetrics(r);
            created.register();
            return created;
        });
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
    void guarded(long token) {
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
        refusals.forEach((state, count) -> counts.put(state, count.sum()));
        return counts;
    }

    @Override
    public long getEpochAdvances() {
        return advances.sum();
    }

    @Override
    public long getCurrentMark() {
        return mark.get();
    }
}
