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
}
