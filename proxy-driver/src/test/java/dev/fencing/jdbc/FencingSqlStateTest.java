package dev.fencing.jdbc;

import dev.fencing.sql.EpochSql;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fence's SQLStates: one per kind, in class ZF, the same inside the database's triggers (SPEC C1, C9). */
class FencingSqlStateTest {
    @Test
    void sixStatesOnePerKindInClassZf_C1() {
        assertEquals(List.of("ZF001", "ZF002", "ZF003", "ZF004", "ZF005", "ZF006"), FencingSqlState.ALL);
        assertEquals(6, Set.copyOf(FencingSqlState.ALL).size());
    }

    /** The epoch table's triggers are written by sql-rewriter, which cannot see this class: the same state. */
    @Test
    void theDatabasesOwnMarkProtectionRaisesTheProtectedState_C9() {
        assertEquals(FencingSqlState.PROTECTED, EpochSql.MARK_PROTECTED_STATE);
        assertTrue(new EpochSql(dev.fencing.sql.Dialect.POSTGRESQL, dev.fencing.sql.EpochTable.of("fencing_epoch"))
                .protect().stream().anyMatch(sql -> sql.contains("ERRCODE = '" + FencingSqlState.PROTECTED + "'")));
    }

    /** The enforcement trigger (issue 28) is written by sql-rewriter too: it refuses with the driver's states. */
    @Test
    void theEnforcementTriggerRaisesTheDriversStates_C1() {
        assertEquals(FencingSqlState.INVALID_TOKEN, dev.fencing.sql.EnforceSql.NO_TOKEN_STATE);
        assertEquals(FencingSqlState.STALE_TOKEN, dev.fencing.sql.EnforceSql.STALE_STATE);
        assertEquals(FencingSqlState.TOKEN_NOT_ISSUED, dev.fencing.sql.EnforceSql.NOT_ISSUED_STATE);
        String body = new dev.fencing.sql.EnforceSql(dev.fencing.sql.EpochTable.resolved("app", "fencing_epoch"),
                dev.fencing.sql.EpochTable.resolved("app", "fencing_lease")).body();
        for (String state : new String[] {FencingSqlState.INVALID_TOKEN, FencingSqlState.STALE_TOKEN,
            FencingSqlState.TOKEN_NOT_ISSUED}) {
            assertTrue(body.contains("ERRCODE = '" + state + "'"), state);
        }
    }
}
