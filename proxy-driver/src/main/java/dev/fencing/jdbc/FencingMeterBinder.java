package dev.fencing.jdbc;

import dev.fencing.jdbc.audit.MicrometerMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the fence's meters (see docs/operations.md) to a Micrometer registry that is not Micrometer's global one:
 * {@code new FencingMeterBinder().bindTo(registry)}. Registries in the global one (Spring Boot's, by default) need
 * nothing: the driver binds its meters there by itself whenever Micrometer is on the class path. This class is
 * the only public one that needs Micrometer; the driver never requires it.
 */
public final class FencingMeterBinder implements MeterBinder {
    @Override
    public void bindTo(MeterRegistry registry) {
        MicrometerMeters.bindTo(registry);
    }
}
