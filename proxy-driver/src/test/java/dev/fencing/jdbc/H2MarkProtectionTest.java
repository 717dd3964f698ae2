package dev.fencing.jdbc;

import dev.fencing.sql.EpochSql;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The database's own protection of the marks on embedded H2 (a Java trigger, and a self-reference against TRUNCATE). */
class H2MarkProtectionTest extends MarkProtectionTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Override
    List<String> databaseAttacks() {
        return List.of(
                "MERGE INTO {E} KEY (resource) VALUES ('{R}', 1)",
                "MERGE INTO {E} t USING (SELECT '{R}' AS r) s ON t.resource = s.r WHEN MATCHED THEN DELETE",
                "MERGE INTO {E} t USING (SELECT '{R}' AS r) s ON t.resource = s.r WHEN MATCHED THEN UPDATE SET epoch = 1");
    }

    @Override
    String truncateState() {
        return "90106"; // H2: cannot truncate a table a foreign key references
    }

    @Test
    void theTriggerCreatedIsThisClassAndRaisesTheDocumentedState_C9() {
        assertEquals(H2EpochTrigger.class.getName(), EpochSql.H2_TRIGGER_CLASS);
        assertEquals(FencingSqlState.PROTECTED, EpochSql.MARK_PROTECTED_STATE);
    }
}
