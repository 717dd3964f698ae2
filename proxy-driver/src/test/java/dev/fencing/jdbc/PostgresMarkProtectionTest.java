package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The database's own protection of the marks on PostgreSQL (plpgsql row and TRUNCATE triggers), views included. */
@RequiresPostgres
class PostgresMarkProtectionTest extends MarkProtectionTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    List<String> databaseAttacks() {
        return List.of(
                "INSERT INTO {E} (resource, epoch) VALUES ('{R}', 1) ON CONFLICT (resource) DO UPDATE SET epoch = 1",
                "MERGE INTO {E} t USING (SELECT '{R}' AS r) s ON t.resource = s.r WHEN MATCHED THEN DELETE",
                "WITH gone AS (DELETE FROM {E} RETURNING *) SELECT count(*) FROM gone",
                "DO $$ BEGIN UPDATE {E} SET epoch = 1; END $$");
    }

    @Override
    String truncateState() {
        return FencingSqlState.PROTECTED;
    }

    @Test
    void throughAViewLoweringAndDeletingAMarkFail_C9() throws Exception {
        TestDatabase.exec(raw, sql("CREATE VIEW {E}_v AS SELECT * FROM {E}"));
        for (String attack : List.of("UPDATE {E}_v SET epoch = 1 WHERE resource = '{R}'",
                "DELETE FROM {E}_v WHERE resource = '{R}'", "UPDATE {E}_v SET resource = 'x'")) {
            assertEquals(FencingSqlState.PROTECTED, rawFailure(sql(attack)).getSQLState(), attack);
            assertEquals(MARK, mark(), attack);
        }
        TestDatabase.exec(raw, sql("UPDATE {E}_v SET epoch = 6 WHERE resource = '{R}'"));
        assertEquals(6, mark());
    }

    @Test
    void validateRefusesADisabledOrHollowedOutProtection_C9() throws Exception {
        String validate = TestDatabase.fenced(raw, "fencing.table=" + epoch);
        DriverManager.getConnection(validate).close();
        TestDatabase.exec(raw, sql("ALTER TABLE {E} DISABLE TRIGGER fencing_protect_truncate"));
        assertEquals(FencingSqlState.CONFIGURATION,
                assertThrows(SQLException.class, () -> DriverManager.getConnection(validate)).getSQLState());
        TestDatabase.exec(raw, sql("ALTER TABLE {E} ENABLE TRIGGER fencing_protect_truncate"));
        DriverManager.getConnection(validate).close();
        TestDatabase.exec(raw, "CREATE OR REPLACE FUNCTION fencing_protect_mark() RETURNS trigger LANGUAGE plpgsql"
                + " AS $$ BEGIN RETURN NEW; END $$");
        try {
            assertEquals(FencingSqlState.CONFIGURATION,
                    assertThrows(SQLException.class, () -> DriverManager.getConnection(validate)).getSQLState());
        } finally {
            // restores the shared function for every epoch table of the schema
            DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + epoch, "fencing.schema=create"))
                    .close();
        }
        assertEquals(FencingSqlState.PROTECTED, rawFailure(sql("DELETE FROM {E}")).getSQLState());
        assertEquals(MARK, mark());
    }
}
