package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /**
     * The protection's function lives in the epoch table's schema and serves every epoch table there, so this test
     * hollows out one in a schema of its own: replacing the shared {@code public.fencing_protect_mark()} switched
     * the protection off for every run on the server while it ran, and a concurrent run's {@code fencing.schema=create}
     * restored it under this test (issue 27: a first build flaked on it).
     */
    @Test
    void validateRefusesADisabledOrHollowedOutProtection_C9() throws Exception {
        String schema = TestDatabase.unique("hollow");
        String table = schema + "." + epoch;
        TestDatabase.exec(raw, "CREATE SCHEMA " + schema);
        try {
            try (java.sql.Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + table,
                    "fencing.resource=" + resource, "fencing.schema=create", "fencing.token=" + MARK))) {
                c.createStatement().executeUpdate("UPDATE " + data + " SET v = 2");
            }
            String validate = TestDatabase.fenced(raw, "fencing.table=" + table);
            DriverManager.getConnection(validate).close();
            TestDatabase.exec(raw, "ALTER TABLE " + table + " DISABLE TRIGGER fencing_protect_truncate");
            assertEquals(FencingSqlState.CONFIGURATION,
                    assertThrows(SQLException.class, () -> DriverManager.getConnection(validate)).getSQLState());
            TestDatabase.exec(raw, "ALTER TABLE " + table + " ENABLE TRIGGER fencing_protect_truncate");
            DriverManager.getConnection(validate).close();
            TestDatabase.exec(raw, "CREATE OR REPLACE FUNCTION " + schema + ".fencing_protect_mark() RETURNS trigger"
                    + " LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$");
            assertEquals(FencingSqlState.CONFIGURATION,
                    assertThrows(SQLException.class, () -> DriverManager.getConnection(validate)).getSQLState());
            // fencing.schema=create restores the schema's function for its epoch tables
            DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + table, "fencing.schema=create"))
                    .close();
            DriverManager.getConnection(validate).close();
            assertEquals(FencingSqlState.PROTECTED, rawFailure("DELETE FROM " + table).getSQLState());
            try (java.sql.Connection c = DriverManager.getConnection(raw);
                 java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT epoch FROM " + table)) {
                assertTrue(rs.next());
                assertEquals(MARK, rs.getLong(1));
            }
        } finally {
            TestDatabase.exec(raw, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }
}
