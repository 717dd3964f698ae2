package dev.fencing.jdbc;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link ServerTruthTest} on PostgreSQL: a failed {@code PREPARE TRANSACTION}, a {@code COMMIT} failing on a
 * deferred constraint, and procedures and {@code DO} blocks that commit inside.
 */
@RequiresPostgres
class PostgresServerTruthTest extends ServerTruthTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    void createStatementTrigger() throws SQLException {
        TestDatabase.exec(raw, "CREATE FUNCTION " + table + "_logged() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " INSERT INTO " + log + " VALUES (1); RETURN NULL; END $$",
                "CREATE TRIGGER " + table + "_statement AFTER INSERT OR UPDATE OR DELETE ON " + table
                        + " FOR EACH STATEMENT EXECUTE FUNCTION " + table + "_logged()");
    }

    @Test
    void aFailedPrepareTransactionEndsTheTransaction_C9() throws Exception {
        Assumptions.assumeTrue(value("SELECT setting::int FROM pg_settings WHERE name = 'max_prepared_transactions'")
                == 0, "prepared transactions are enabled on this server");
        staleAfter((old, s) -> assertThrows(SQLException.class, () -> s.execute("PREPARE TRANSACTION 'st'")));
    }

    private void deferredViolation(Statement s) throws SQLException {
        s.execute("CREATE TABLE IF NOT EXISTS " + table + "_def (ref INT REFERENCES " + table
                + " (id) DEFERRABLE INITIALLY DEFERRED)");
        s.executeUpdate("INSERT INTO " + table + "_def VALUES (999)");
    }

    @Test
    void aCommitSentAsSqlThatFailsOnADeferredConstraintEndsTheTransaction_C9() throws Exception {
        staleAfter((old, s) -> {
            deferredViolation(s);
            assertThrows(SQLException.class, () -> s.execute("COMMIT"));
        });
    }

    @Test
    void setAutoCommitThatFailsOnADeferredConstraintEndsTheTransaction_C9() throws Exception {
        staleAfter((old, s) -> {
            deferredViolation(s);
            assertThrows(SQLException.class, () -> old.setAutoCommit(true));
            old.setAutoCommit(false);
        });
    }

    @Test
    void aProcedureOrBlockThatCommitsInsideFailsWithTheServersErrorAndChangesNothing_C9() throws Exception {
        TestDatabase.exec(raw, "CREATE PROCEDURE " + table + "_commits() LANGUAGE plpgsql AS $$ BEGIN UPDATE " + table
                + " SET n = n + 1 WHERE id = 1; COMMIT; UPDATE " + table + " SET n = n + 10 WHERE id = 1; END $$");
        String call = "CALL " + table + "_commits()";
        String block = "DO $$ BEGIN UPDATE " + table + " SET n = n + 1 WHERE id = 1; COMMIT; UPDATE " + table
                + " SET n = n + 10 WHERE id = 1; END $$";
        try (Connection c = owner(MARK)) {
            for (boolean inTransaction : new boolean[] {false, true}) {
                c.setAutoCommit(!inTransaction);
                try (Statement s = c.createStatement()) {
                    assertEquals("2D000", assertThrows(SQLException.class, () -> s.execute(call)).getSQLState());
                    c.setAutoCommit(true);
                    c.setAutoCommit(!inTransaction);
                    assertEquals("2D000", assertThrows(SQLException.class, () -> s.execute(block)).getSQLState());
                    c.setAutoCommit(true);
                    c.setAutoCommit(!inTransaction);
                    assertEquals("2D000", assertThrows(SQLException.class, () -> s.execute("SELECT 1; " + call))
                            .getSQLState(), "a call after another statement of the same text");
                    c.setAutoCommit(true);
                    c.setAutoCommit(!inTransaction);
                }
                try (PreparedStatement ps = c.prepareStatement(call)) {
                    assertEquals("2D000", assertThrows(SQLException.class, ps::execute).getSQLState());
                }
                c.setAutoCommit(true);
                c.setAutoCommit(!inTransaction);
                try (CallableStatement cs = c.prepareCall(call)) {
                    assertEquals("2D000", assertThrows(SQLException.class, cs::execute).getSQLState());
                }
                c.setAutoCommit(true);
            }
        }
        assertEquals(0, n(1), "no part of a procedure that commits inside ran");
    }
    @Test
    void inSimpleQueryModePreparedWritesAreStillGuarded_C9() throws Exception {
        String before = n(1) + "/" + mark();
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "preferQueryMode=simple",
                "fencing.resource=" + resource, "fencing.token=" + (MARK - 1)))) {
            for (String sql : new String[] {"UPDATE " + table + " SET n = n + 1", "INSERT INTO " + table
                    + " VALUES (9, 9)"}) {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    assertEquals(FencingSqlState.STALE_TOKEN, assertThrows(SQLException.class, ps::execute)
                            .getSQLState(), sql);
                }
            }
        }
        assertEquals(before, n(1) + "/" + mark());
        assertEquals(2, value("SELECT count(*) FROM " + table));
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "preferQueryMode=simple",
                "fencing.resource=" + resource, "fencing.token=" + MARK));
             PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET n = n + ? WHERE id = 1")) {
            ps.setInt(1, 1);
            assertEquals(1, ps.executeUpdate());
        }
        assertEquals(1, n(1));
    }

    @Test
    void operatorsASessionPutsOnItsSearchPathCannotChangeTheGuard_C9() throws Exception {
        String evil = table + "_ops";
        String operator = "CREATE OPERATOR " + evil + ".%s (LEFTARG = %s, RIGHTARG = bigint, FUNCTION = " + evil + ".%s)";
        TestDatabase.exec(raw, "CREATE SCHEMA " + evil,
                "CREATE FUNCTION " + evil + ".always(bigint, bigint) RETURNS boolean LANGUAGE sql IMMUTABLE AS"
                        + " 'SELECT true'",
                "CREATE FUNCTION " + evil + ".never(bigint, bigint) RETURNS boolean LANGUAGE sql IMMUTABLE AS"
                        + " 'SELECT false'",
                "CREATE FUNCTION " + evil + ".one(text, bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT '1'$$",
                String.format(operator, "||", "text", "one"), String.format(operator, "=", "bigint", "always"),
                String.format(operator, ">=", "bigint", "always"), String.format(operator, "<=", "bigint", "always"),
                String.format(operator, "<", "bigint", "never"));
        try {
            long before = n(1);
            try (Connection stale = owner(MARK - 2); Statement s = stale.createStatement()) {
                s.execute("SET search_path = " + evil + ", pg_catalog, public");
                assertThrows(SQLException.class, () -> s.executeUpdate("UPDATE " + table + " SET n = n + 1"));
                stale.setAutoCommit(false);
                assertThrows(SQLException.class, () -> s.executeUpdate("UPDATE " + table + " SET n = n + 1"));
                stale.rollback();
            }
            assertEquals(before, n(1), "no stale write");
            assertEquals(MARK, mark(), "the mark was not lowered");
            try (Connection judgeSession = DriverManager.getConnection(raw); Statement s = judgeSession.createStatement()) {
                s.execute("SET search_path = " + evil + ", pg_catalog, public");
                assertEquals("ZF005", assertThrows(SQLException.class, () -> s.executeUpdate(
                        "UPDATE public.fencing_epoch SET epoch = 1 WHERE resource = '" + resource + "'"))
                        .getSQLState(), "the marks' trigger compares with pg_catalog's operators");
            }
        } finally {
            TestDatabase.exec(raw, "DROP SCHEMA " + evil + " CASCADE");
        }
    }
}
