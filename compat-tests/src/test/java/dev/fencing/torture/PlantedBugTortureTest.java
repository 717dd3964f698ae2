package dev.fencing.torture;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checker catches a broken fence: the same workload, but the writers bypass the fencing driver and do the
 * classic check-then-write (read the mark without a lock, pause, write). The checker must report stale commits
 * (C4) with a counter-example naming the operations involved.
 */
class PlantedBugTortureTest {
    @Test
    void theCheckerReportsStaleCommitsOfANaiveCheckThenWriteFenceOnH2_C4() throws Exception {
        try (H2Target target = H2Target.inMemory()) {
            assertCaught(TortureRun.run(target, naive(20261132L)));
        }
    }

    @Test
    void theCheckerReportsStaleCommitsOfANaiveCheckThenWriteFenceOnPostgres_C4() throws Exception {
        try (PostgresTarget target = PostgresTarget.shared()) {
            assertCaught(TortureRun.run(target, naive(20261133L)));
        }
    }

    /** Frequent long pauses between the unlocked check and the write, so the bug shows within a short run. */
    private static TortureRun.Config naive(long seed) {
        TortureRun.Config standard = TortureRun.Config.standard(seed, 150, Set.of());
        return new TortureRun.Config(standard.seed(), 150, standard.owners(), standard.maxWriters(),
                standard.poolSize(), standard.ttl(), 0.3, 0.5, standard.pForce(), 0.0, 0.0,
                standard.faultMeanMillis(), Set.of(), 0, true, standard.deadline(), standard.guard(),
                standard.isolation());
    }

    private static void assertCaught(TortureRun.Result result) {
        List<Checker.Violation> stale = result.violations().stream().filter(v -> v.clause().equals("C4")).toList();
        assertFalse(stale.isEmpty(), "the checker missed the planted bug; " + TortureRun.rerun(result.config()) + "\n"
                + result.report());
        Checker.Violation first = stale.get(0);
        System.out.println("planted bug caught, first counter-example:\n" + first);
        assertTrue(first.counterExample().stream().anyMatch(line -> line.contains("stale: op#")), first.toString());
        assertTrue(first.counterExample().stream().anyMatch(line -> line.contains("high-water mark")), first.toString());
    }
}
