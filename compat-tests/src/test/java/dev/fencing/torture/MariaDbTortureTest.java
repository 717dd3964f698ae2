package dev.fencing.torture;

import dev.fencing.jdbc.RequiresMariaDb;
import org.junit.jupiter.api.Test;

import java.util.Set;

/**
 * Randomized histories on the shared MariaDB server (InnoDB) through the fencing driver: owners take over from each
 * other, pause past their leases, lose connections under statements and run into short lock and statement
 * timeouts; the checker finds no stale commit (C4), no lost or half-done transaction (C3) and no wrong refusal (C2).
 */
@RequiresMariaDb
class MariaDbTortureTest {
    @Test
    void randomizedHistoryWithAbortedConnectionsAndTimeoutsHasNoStaleCommit_C2_C3_C4() throws Exception {
        TortureRun.Config config = TortureRun.Config.standard(20261201L, 500, Set.of(Faults.Kind.ABORT_CONNECTION));
        try (MariaDbTarget target = MariaDbTarget.shared()) {
            TortureRun.assertNoViolations(TortureRun.run(target, config));
        }
    }
}
