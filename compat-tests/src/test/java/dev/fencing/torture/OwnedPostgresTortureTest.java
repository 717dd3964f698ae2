package dev.fencing.torture;

import org.junit.jupiter.api.Test;

/**
 * Randomized histories on a PostgreSQL server the test starts itself (its own data directory and port, never the
 * shared server), with every fault of the shared-server run plus the server stopped (crash-like or clean) and
 * started again mid-run: no stale commit, no lost acknowledged commit, no leftover of a failed one (C2, C3, C4).
 */
class OwnedPostgresTortureTest {
    @Test
    void randomizedHistoryAcrossServerRestartsHasNoStaleCommitAndLosesNoAcknowledgedCommit_C2_C3_C4() throws Exception {
        TortureRun.Config config = TortureRun.Config.standard(20261130L, 400, Faults.all());
        try (PostgresTarget target = PostgresTarget.owned()) {
            TortureRun.assertNoViolations(TortureRun.run(target, config));
        }
    }
}
