package dev.fencing.jdbc.audit;

import dev.fencing.jdbc.FencingSqlState;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;

import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.TimeUnit;

/**
 * The fence's counters as Micrometer meters, tagged {@code resource}: bound to Micrometer's global registry (which
 * Spring Boot feeds its own registries into) and to any registry an application binds with
 * {@link dev.fencing.jdbc.FencingMeterBinder}. Only loaded when Micrometer is on the class path (see
 * {@link FenceMetrics}); the meters read the same counters as the JMX MBean.
 */
public final class MicrometerMeters {
    private static final Set<MeterRegistry> REGISTRIES = new CopyOnWriteArraySet<>(Set.of(Metrics.globalRegistry));

    private MicrometerMeters() {
    }

    /** Binds every resource's meters, now and later, to {@code registry}. */
    public static void bindTo(MeterRegistry registry) {
        if (REGISTRIES.add(registry)) {
            for (FenceMetrics metrics : FenceMetrics.all()) {
                register(metrics, registry);
            }
        }
    }

    /** A new resource: its meters in every registry bound so far. */
    static void bind(FenceMetrics metrics) {
        for (MeterRegistry registry : REGISTRIES) {
            register(metrics, registry);
        }
    }

    private static void register(FenceMetrics metrics, MeterRegistry registry) {
        String resource = metrics.getResource();
        FunctionCounter.builder("fencing.mutations.guarded", metrics, FenceMetrics::getMutationsGuarded)
                .description("mutations that ran with the guard and a current token")
                .tag("resource", resource).register(registry);
        for (String state : FencingSqlState.ALL) {
            FunctionCounter.builder("fencing.refusals", metrics, m -> m.refusals(state))
                    .description("refusals (thrown in enforce mode, run unguarded in audit mode)")
                    .tags("resource", resource, "sqlstate", state).register(registry);
        }
        FunctionCounter.builder("fencing.epoch.advances", metrics, FenceMetrics::getEpochAdvances)
                .description("epoch advances this JVM saw").tag("resource", resource).register(registry);
        FunctionTimer.builder("fencing.epoch.lock", metrics, FenceMetrics::getEpochLocks,
                        FenceMetrics::getEpochLockWaitNanos, TimeUnit.NANOSECONDS)
                .description("statements of the fence's own that locked the epoch row or raised the mark, and the"
                        + " time they took (mostly waiting for the lock)")
                .tag("resource", resource).register(registry);
        FunctionCounter.builder("fencing.session.registrations", metrics, FenceMetrics::getSessionRegistrations)
                .description("server sessions the session fence registered").tag("resource", resource)
                .register(registry);
        FunctionCounter.builder("fencing.session.fallbacks", metrics, FenceMetrics::getSessionFallbacks)
                .description("idle points at which a session-fence registration failed for a transient reason and"
                        + " the statement guard served instead").tag("resource", resource).register(registry);
        Gauge.builder("fencing.epoch.mark", metrics, FenceMetrics::getCurrentMark)
                .description("the highest high-water mark this JVM has seen").tag("resource", resource)
                .register(registry);
    }
}
