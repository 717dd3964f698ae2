package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Savepoints and isolation levels on embedded H2, with two connections, and H2's implicit commit before DDL. */
class H2SavepointIsolationTest extends SavepointIsolationTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Test
    void aWriteAfterDdlIsGuardedAgainBecauseH2CommitsBeforeDdl_C3() throws Exception {
        String scratch = TestDatabase.unique("scratch");
        try (Connection a = fenced(5); Statement s = a.createStatement()) {
            a.setAutoCommit(false);
            assertEquals(1, update(a, 1, 150));
            s.execute("CREATE TABLE " + scratch + " (a INT)");
            handOver();
            FencingRefusedException stale = assertThrows(FencingRefusedException.class, () -> update(a, 1, 999),
                    "H2 committed before the DDL, so the epoch-row lock is gone");
            assertEquals(FencingSqlState.STALE_TOKEN, stale.getSQLState());
            a.commit();
        } finally {
            TestDatabase.exec(raw, "DROP TABLE IF EXISTS " + scratch);
        }
        assertEquals(150, balance(1), "H2 committed the first write with the DDL; the stale one never ran");
        assertEquals(6, mark());
    }
}
