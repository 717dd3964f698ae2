package dev.fencing.torture;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.util.Set;

/**
 * The torture run under the session fence ({@code fencing.guard=session}) at each isolation level: owners take
 * over from each other through pooled and new connections, old owners' sessions are ended by the hand-over, and
 * faults kill backends, cancel statements and abort connections; the checker finds no stale commit (C4), no lost
 * or half-done transaction (C3) and no wrong refusal (C2).
 */
class PostgresSessionTortureTest {
    @ParameterizedTest(name = "isolation {0}")
    @ValueSource(ints = {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ,
            Connection.TRANSACTION_SERIALIZABLE})
    void randomizedHistoryUnderTheSessionFenceHasNoStaleCommit_C2_C3_C4(int isolation) throws Exception {
        // -Dtorture.isolation=2 runs only that level (a java.sql.Connection constant), for one long run
        String only = System.getProperty("torture.isolation");
        Assumptions.assumeTrue(only == null || Integer.parseInt(only) == isolation, "torture.isolation=" + only);
        TortureRun.Config config = TortureRun.Config.standard(20261201L + isolation, 300, Set.of(
                Faults.Kind.KILL_BACKEND, Faults.Kind.CANCEL_STATEMENT, Faults.Kind.ABORT_CONNECTION))
                .guard("session").isolation(isolation);
        try (PostgresTarget target = PostgresTarget.shared()) {
            TortureRun.assertNoViolations(TortureRun.run(target, config));
        }
    }
}
