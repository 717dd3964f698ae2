package dev.fencing.torture;

import dev.fencing.jdbc.RequiresMariaDb;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The torture run under the MariaDB session fence ({@code fencing.guard=session}), through MariaDB Connector/J and
 * MySQL Connector/J: owners take over from each other through pooled and new connections, each epoch change ends the
 * old owner's registered sessions ({@code KILL CONNECTION} by the advancing side, then the wait until the server no
 * longer lists them) while they write, and faults end the run's sessions from another session ({@code KILL
 * CONNECTION}), cancel their statements ({@code KILL QUERY}) and abort connections under statements; the checker
 * finds no stale commit (C4), no lost or half-done transaction (C3) and no wrong refusal (C2).
 */
@RequiresMariaDb
class MariaDbSessionTortureTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource({"mariadb-connector, 250", "mysql-connector, 150"})
    void randomizedHistoryUnderTheSessionFenceHasNoStaleCommit_C2_C3_C4(String connector, int ops) throws Exception {
        // -Dtorture.connector=mysql-connector runs only that connector, for one long run
        String only = System.getProperty("torture.connector");
        Assumptions.assumeTrue(only == null || only.equals(connector), "torture.connector=" + only);
        TortureRun.Config config = TortureRun.Config.standard(20261222L + connector.length(), ops, Set.of(
                Faults.Kind.KILL_BACKEND, Faults.Kind.CANCEL_STATEMENT, Faults.Kind.ABORT_CONNECTION))
                .guard("session");
        try (MariaDbTarget target = connector.equals("mysql-connector") ? MariaDbTarget.sharedThroughMySqlConnector()
                : MariaDbTarget.shared()) {
            TortureRun.Result result = TortureRun.run(target, config);
            TortureRun.assertNoViolations(result);
            // the faults reached sessions the fence had registered (the run is under the session fence, not beside it)
            assertTrue(result.history().faultLog().stream().anyMatch(line -> line.contains("registered at token")),
                    "no injected fault met a registered session");
        }
    }
}
