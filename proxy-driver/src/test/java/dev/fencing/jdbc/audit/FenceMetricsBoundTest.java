package dev.fencing.jdbc.audit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Made-up resource names cannot grow the counters (and MBeans) without bound: past the limit they share one entry. */
class FenceMetricsBoundTest {
    @Test
    void resourcesPastTheLimitShareTheOthersCounters() {
        FenceMetrics.of("bound-known");
        int full = FenceMetrics.all().size();
        FenceMetrics past = FenceMetrics.of("bound-new-" + System.nanoTime(), full);
        assertEquals(FenceMetrics.OTHERS, past.getResource());
        assertSame(past, FenceMetrics.of("bound-another-" + System.nanoTime(), full + 1));
        assertEquals("bound-known", FenceMetrics.of("bound-known", full).getResource(), "a known one keeps its own");
    }
}
