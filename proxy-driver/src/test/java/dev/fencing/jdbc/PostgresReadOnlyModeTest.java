package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link ReadOnlyModeTest} on PostgreSQL under the statement guard (SPEC C10). */
@RequiresPostgres
class PostgresReadOnlyModeTest extends ReadOnlyModeTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    String[] writerAndView() {
        return new String[] {"CREATE FUNCTION " + table + "_w() RETURNS int LANGUAGE plpgsql AS $$ BEGIN UPDATE "
                + table + " SET v = v + 1 WHERE id = 1; RETURN 1; END $$",
                "CREATE VIEW " + table + "_v AS SELECT " + table + "_w() AS w"};
    }

    @Override
    String[] dropWriterAndView() {
        return new String[] {"DROP VIEW IF EXISTS " + table + "_v", "DROP FUNCTION IF EXISTS " + table + "_w()"};
    }

    @Override
    String[] sessionLifts() {
        return new String[] {"SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
                "SET default_transaction_read_only = off", "SET transaction_read_only = off", "COMMIT AND CHAIN",
                "SET SESSION \"default_transaction_read_only\" TO 0"};
    }

    @Test
    void aLiftByAFunctionTheDriverAllowsIsUndoneBeforeTheNextStatement_C10() throws SQLException {
        try (Connection c = fenced()) {
            try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT set_config('default_transaction_read_only', 'off', false)").close();
            }
            assertRefusedUnchanged(c, hiddenWrite());
            for (String reset : new String[] {"RESET ALL", "DISCARD ALL"}) {
                try (Statement s = c.createStatement()) {
                    s.execute(reset);
                }
                assertRefusedUnchanged(c, hiddenWrite());
            }
        }
    }

    /**
     * Found by review: a read that turns the session's read-only default off (set_config, also hidden in a view),
     * then a COMMIT, then the hidden write in the transaction that opens next, by a statement, by a metadata call, or
     * inside one text. The default is set back right after the statement that changed it, and a text cannot hold
     * transaction control beside other statements.
     */
    @Test
    void aReadThatLiftsTheDefaultCannotOpenAReadWriteTransaction_C10() throws SQLException {
        TestDatabase.exec(raw, "CREATE VIEW " + table + "_off AS SELECT set_config('default_transaction_read_only',"
                + " 'off', false) AS off");
        try {
            for (String lift : new String[] {"SELECT set_config('default_transaction_read_only', 'off', false)",
                    "SELECT * FROM " + table + "_off"}) {
                for (boolean metadataFirst : new boolean[] {false, true}) {
                    try (Connection c = fenced(); Statement s = c.createStatement()) {
                        c.setAutoCommit(false);
                        s.executeQuery(lift).close();
                        c.commit();
                        if (metadataFirst) {
                            c.getMetaData().getTables(null, null, table, null).close();
                        }
                        assertRefusedUnchanged(c, hiddenWrite());
                        c.rollback();
                    }
                }
            }
            try (Connection c = fenced(); Statement s = c.createStatement()) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute("SELECT * FROM " + table
                        + "_off; COMMIT; " + hiddenWrite()));
                assertEquals(FencingSqlState.CANNOT_GUARD, e.getSQLState(), e.toString());
                assertRefusedUnchanged(c, hiddenWrite());
            }
            assertEquals(100, value(1));
        } finally {
            TestDatabase.exec(raw, "DROP VIEW IF EXISTS " + table + "_off");
        }
    }

    @Test
    void theCallersOwnStartupOptionsAreKept_C10() throws SQLException {
        try (Connection c = fenced("options=-c%20statement_timeout%3D4321%20-c%20default_transaction_read_only%3Doff");
             Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT current_setting('statement_timeout')")) {
            rs.next();
            assertEquals("4321ms", rs.getString(1));
            assertRefusedUnchanged(c, hiddenWrite());
        }
    }

    @Test
    void aStaleSetTransactionReadWriteLeavesTheTransactionReadOnly_C10() throws SQLException {
        try (Connection newer = owner(MARK + 1); Statement s = newer.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET v = v WHERE id = 2");
        }
        try (Connection stale = owner(MARK); Statement s = stale.createStatement()) {
            s.execute("BEGIN");
            SQLException e = assertThrows(SQLException.class, () -> s.execute("SET TRANSACTION READ WRITE"));
            assertEquals(FencingSqlState.STALE_TOKEN, e.getSQLState(), e.toString());
            assertThrows(SQLException.class, () -> s.executeQuery(hiddenWrite()).close());
            s.execute("ROLLBACK");
            assertEquals(100, value(1));
        }
    }
}
