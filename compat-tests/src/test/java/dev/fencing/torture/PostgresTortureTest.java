package dev.fencing.torture;

import org.junit.jupiter.api.Test;

import java.util.Set;

/**
 * Randomized histories on the shared PostgreSQL server through the fencing driver: owners take over from each
 * other, pause past their leases, and lose backends, connections and statements to injected faults; the checker
 * finds no stale commit (C4), no lost or half-done transaction (C3) and no wrong refusal (C2).
 */
class PostgresTortureTest {
    @Test
    void randomizedHistoryWithKilledBackendsAbortedConnectionsAndTimeoutsHasNoStaleCommit_C2_C3_C4() throws Exception {
        TortureRun.Config config = TortureRun.Config.standard(20261129L, 700, Set.of(Faults.Kind.KILL_BACKEND,
                Faults.Kind.CANCEL_STATEMENT, Faults.Kind.ABORT_CONNECTION));
        try (PostgresTarget target = PostgresTarget.shared()) {
            TortureRun.assertNoViolations(TortureRun.run(target, config));
        }
    }
}
