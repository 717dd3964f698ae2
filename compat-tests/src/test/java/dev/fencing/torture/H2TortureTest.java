package dev.fencing.torture;

import org.junit.jupiter.api.Test;

import java.util.Set;

/**
 * Randomized histories on an H2 file database whose server process the test kills ({@code SIGKILL}) and starts
 * again mid-run, with lock waits cut by short lock timeouts: no stale commit, no lost acknowledged commit, no
 * leftover of a failed one (C2, C3, C4).
 */
class H2TortureTest {
    @Test
    void randomizedHistoryAcrossKilledDatabaseProcessesHasNoStaleCommitAndLosesNoAcknowledgedCommit_C2_C3_C4()
            throws Exception {
        TortureRun.Config config = TortureRun.Config.standard(20261131L, 400, Set.of(Faults.Kind.RESTART));
        try (H2Target target = H2Target.fileServer()) {
            TortureRun.assertNoViolations(TortureRun.run(target, config));
        }
    }
}
