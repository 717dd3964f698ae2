package dev.fencing.jdbc;

import dev.fencing.sql.EpochSql;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guard's verdict cannot be forged (SPEC C10, C8): a caller's own error raising the guard function's SQLStates
 * ({@code ZFG01}, {@code ZFG02}), from a function, a {@code DO} block or a trigger, with a current token, comes back
 * to the caller unchanged, and the caller's text runs exactly once (its sequence, which no rollback undoes, is the
 * server's count). The real guard's stale and behind still work.
 */
@RequiresPostgres
class PostgresGuardVerdictTest {
    private String raw;
    private String name;
    private String epoch;
    private String resource;
    private String sequence;

    @BeforeEach
    void setUp() throws Exception {
        raw = TestDatabase.POSTGRESQL.rawUrl();
        name = TestDatabase.unique("verdict");
        epoch = name + ".fence";
        resource = TestDatabase.unique("res");
        sequence = name + "_seq";
        TestDatabase.exec(raw, "CREATE SCHEMA " + name, "CREATE SEQUENCE " + sequence,
                "CREATE TABLE " + name + "_t (id int)",
                "CREATE FUNCTION " + name + "_raise(state text, detail text) RETURNS int LANGUAGE plpgsql AS $$"
                        + " BEGIN RAISE EXCEPTION 'caller''s own % error', state USING ERRCODE = state,"
                        + " DETAIL = detail; END $$",
                "CREATE FUNCTION " + name + "_trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM nextval('"
                        + sequence + "'); RAISE EXCEPTION 'caller''s own trigger error' USING ERRCODE = 'ZFG02',"
                        + " HINT = '1'; END $$",
                "CREATE TRIGGER " + name + "_trg BEFORE INSERT ON " + name + "_t FOR EACH ROW EXECUTE FUNCTION "
                        + name + "_trg()");
        try (Connection c = fenced(5); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + name + "_t SET id = 1"); // the mark is 5 now
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        TestDatabase.dropNamed(raw, name);
    }

    private Connection fenced(long token) throws SQLException {
        return TestDatabase.fencedAt(token, raw, "fencing.schema=create", "fencing.table=" + epoch,
                "fencing.resource=" + resource);
    }

    /** How many values the caller's sequence handed out, as the server says. */
    private long nextvalCalls() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM " + sequence)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long mark() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private interface Send {
        void run(Connection c) throws SQLException;
    }

    /** Runs {@code send} at the current token and checks the caller's own error came back and the text ran once. */
    private void assertOwnErrorOnce(String state, String message, boolean inTransaction, Send send) throws Exception {
        long before = nextvalCalls();
        try (Connection c = fenced(5)) {
            c.setAutoCommit(!inTransaction);
            SQLException e = assertThrows(SQLException.class, () -> send.run(c));
            assertEquals(state, e.getSQLState(), "the caller's own SQLState: " + e);
            assertTrue(e.getMessage().contains(message), "the caller's own message: " + e.getMessage());
            if (inTransaction) {
                c.rollback();
            }
        }
        assertEquals(before + 1, nextvalCalls(), "the caller's text ran exactly once on the server");
        assertEquals(5, mark());
    }

    private String call(String state, String detail) {
        return "SELECT nextval('" + sequence + "'), " + name + "_raise('" + state + "', '" + detail + "')";
    }

    @Test
    void aCallersBehindStateFromAFunctionRunsOnceAndComesBackUnchanged_C10_C8() throws Exception {
        for (boolean inTransaction : new boolean[]{false, true}) {
            assertOwnErrorOnce(EpochSql.GUARD_BEHIND_STATE, "caller's own ZFG02 error", inTransaction,
                    c -> c.createStatement().executeQuery(call("ZFG02", "7")));
            assertOwnErrorOnce(EpochSql.GUARD_BEHIND_STATE, "caller's own ZFG02 error", inTransaction, c -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT nextval(?), " + name + "_raise(?, ?)")) {
                    ps.setString(1, sequence);
                    ps.setString(2, "ZFG02");
                    ps.setString(3, "7");
                    ps.executeQuery();
                }
            });
        }
    }

    @Test
    void aCallersStaleStateWithACraftedDetailIsNotTakenForTheGuards_C10_C8() throws Exception {
        for (boolean inTransaction : new boolean[]{false, true}) {
            assertOwnErrorOnce(EpochSql.GUARD_STALE_STATE, "caller's own ZFG01 error", inTransaction,
                    c -> c.createStatement().executeQuery(call("ZFG01", "9")));
        }
    }

    @Test
    void aCallersBehindStateFromATriggerOrADoBlockRunsOnce_C10_C8() throws Exception {
        for (boolean inTransaction : new boolean[]{false, true}) {
            assertOwnErrorOnce(EpochSql.GUARD_BEHIND_STATE, "caller's own trigger error", inTransaction,
                    c -> c.createStatement().executeUpdate("INSERT INTO " + name + "_t VALUES (1)"));
            assertOwnErrorOnce(EpochSql.GUARD_BEHIND_STATE, "caller's own DO error", inTransaction,
                    c -> c.createStatement().execute("DO $$ BEGIN PERFORM nextval('" + sequence + "'); RAISE"
                            + " EXCEPTION 'caller''s own DO error' USING ERRCODE = 'ZFG02'; END $$"));
        }
    }

    @Test
    void theGuardsOwnVerdictsStillHold_C2() throws Exception {
        long before = nextvalCalls();
        try (Connection c = fenced(6); Statement s = c.createStatement()) {
            s.executeQuery("SELECT nextval('" + sequence + "'), " + name + "_raise(NULL, NULL) IS NULL AS x"
                    + " WHERE false").close(); // behind: advanced to 6, then run once
        }
        assertEquals(6, mark());
        try (Connection c = fenced(5); Statement s = c.createStatement()) {
            SQLException stale = assertThrows(SQLException.class, () -> s.executeQuery(call("ZFG02", "1")));
            assertEquals(FencingSqlState.STALE_TOKEN, stale.getSQLState());
            assertTrue(stale.getMessage().contains("token 6"), stale.getMessage());
        }
        assertEquals(before, nextvalCalls(), "a stale guard stops the text before it runs");
    }
}
