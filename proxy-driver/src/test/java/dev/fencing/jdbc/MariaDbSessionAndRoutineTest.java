package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MariaDB forms that reach the fence sideways: a session's {@code sql_select_limit} (it hid the epoch row and the
 * catalog's answers from the fence's own reads), stored programs with compound bodies, and events (scheduled SQL
 * that runs later, without a token). The server judges.
 */
@RequiresMariaDb
class MariaDbSessionAndRoutineTest {
    private static final long MARK = 5;
    private final String raw = TestDatabase.MARIADB.rawUrl();
    private final String table = TestDatabase.unique("sr");
    private final String resource = TestDatabase.unique("res");

    @BeforeEach
    void setUp() throws SQLException {
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100)",
                "CREATE FUNCTION " + table + "_fn() RETURNS INT MODIFIES SQL DATA BEGIN UPDATE " + table
                        + " SET balance = balance + 1; RETURN 1; END");
        try (Connection c = fenced(MARK, "fencing.schema=create"); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET balance = balance WHERE id = 1");
        }
    }

    @AfterEach
    void tearDown() throws SQLException {
        TestDatabase.exec(raw, "DROP FUNCTION IF EXISTS " + table + "_fn", "DROP PROCEDURE IF EXISTS " + table + "_p",
                "DROP EVENT IF EXISTS " + table + "_e", "DROP EVENT IF EXISTS " + table + "_e2",
                "DROP PROCEDURE IF EXISTS " + table + "_lift", "DROP TRIGGER IF EXISTS " + table + "_lift",
                "DROP TABLE IF EXISTS " + table);
    }

    private Connection fenced(long token, String... more) throws SQLException {
        String[] settings = new String[more.length + 2];
        settings[0] = "fencing.resource=" + resource;
        settings[1] = "fencing.token=" + token;
        System.arraycopy(more, 0, settings, 2, more.length);
        return DriverManager.getConnection(TestDatabase.fenced(raw, token > 0 ? settings
                : java.util.Arrays.copyOfRange(settings, 0, 1)));
    }

    private int balance() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM " + table + " WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static SQLException refusal(Connection c, String sql) {
        return assertThrows(SQLException.class, () -> {
            try (Statement s = c.createStatement()) {
                s.execute(sql);
            }
        }, sql);
    }

    @Test
    void sqlSelectLimitZeroHidesNothingFromTheFence_C2() throws Exception {
        try (Connection current = fenced(MARK); Statement s = current.createStatement()) {
            s.execute("SET SESSION sql_select_limit = 0");
            assertEquals(1, s.executeUpdate("UPDATE " + table + " SET balance = 7 WHERE id = 1"));
        }
        assertEquals(7, balance());
        try (Connection advancing = fenced(MARK + 1); Statement s = advancing.createStatement()) {
            s.execute("SET sql_select_limit = 0");
            assertEquals(1, s.executeUpdate("UPDATE " + table + " SET balance = 8 WHERE id = 1"));
        }
        try (Connection stale = fenced(MARK); Connection none = fenced(0)) {
            for (Connection c : new Connection[] {stale, none}) {
                try (Statement s = c.createStatement()) {
                    s.execute("SET @@session.sql_select_limit = 0");
                }
            }
            assertEquals(FencingSqlState.STALE_TOKEN,
                    refusal(stale, "UPDATE " + table + " SET balance = 9 WHERE id = 1").getSQLState());
            // The catalog's answer (a stored function, which may write) must not be hidden either.
            assertEquals(FencingSqlState.INVALID_TOKEN, refusal(none, "SELECT " + table + "_fn()").getSQLState());
            assertEquals(FencingSqlState.INVALID_TOKEN, refusal(none, "SET @x = " + table + "_fn()").getSQLState());
        }
        assertEquals(8, balance());
    }

    @Test
    void aStoredProgramWithACompoundBodyIsRefusedSayingWhy_C5() throws Exception {
        String body = " BEGIN UPDATE " + table + " SET balance = 1; END";
        String[] texts = {"CREATE PROCEDURE " + table + "_p()" + body,
                "CREATE OR REPLACE DEFINER = CURRENT_USER PROCEDURE " + table + "_p()" + body,
                "CREATE FUNCTION " + table + "_f2() RETURNS INT MODIFIES SQL DATA BEGIN UPDATE " + table
                        + " SET balance = 1; RETURN 1; END",
                "CREATE TRIGGER " + table + "_t BEFORE UPDATE ON " + table + " FOR EACH ROW BEGIN SET NEW.balance = 3;"
                        + " END",
                "CREATE EVENT " + table + "_e ON SCHEDULE AT CURRENT_TIMESTAMP + INTERVAL 1 DAY DO" + body,
                "CREATE PROCEDURE " + table + "_p()" + body + "; DELETE FROM " + table};
        try (Connection current = fenced(MARK)) {
            for (String text : texts) {
                SQLException e = refusal(current, text);
                assertEquals(FencingSqlState.CANNOT_GUARD, e.getSQLState(), text);
                assertTrue(e.getMessage().contains("BEGIN ... END body") && e.getMessage().contains("single statement"),
                        e.getMessage());
            }
        }
        assertEquals(100, balance());
        assertEquals(0, count("information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME LIKE '"
                + table + "\\_%' AND ROUTINE_NAME <> '" + table + "_fn'"));
        // A body of one statement is DDL like any other: guarded.
        try (Connection current = fenced(MARK); Statement s = current.createStatement()) {
            s.execute("CREATE PROCEDURE " + table + "_p() UPDATE " + table + " SET balance = 1");
        }
        assertEquals(1, count("information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME = '"
                + table + "_p'"));
    }

    /**
     * An event is scheduled SQL the server runs later, in a session of its own that no token admits, so its writes
     * would land after any hand-over: creating or altering one is refused whatever the token (SPEC C10, work the
     * fence cannot follow). Dropping one is DDL and needs a current token.
     */
    @Test
    void eventsAreRefusedWhateverTheTokenAndDroppingOneNeedsACurrentToken_C10() throws Exception {
        String event = table + "_e";
        String create = "CREATE EVENT " + event + " ON SCHEDULE AT CURRENT_TIMESTAMP + INTERVAL 1 DAY DO UPDATE "
                + table + " SET balance = 0";
        String[] changes = {create, "CREATE OR REPLACE DEFINER = CURRENT_USER EVENT " + event
                + " ON SCHEDULE EVERY 1 DAY DO DELETE FROM " + table, "ALTER EVENT " + event + " ENABLE",
                "ALTER EVENT " + event + " ON SCHEDULE EVERY 1 SECOND DO UPDATE " + table + " SET balance = 0",
                "ALTER EVENT " + event + " RENAME TO " + event + "2"};
        try (Connection none = fenced(0); Connection stale = fenced(MARK - 1); Connection current = fenced(MARK)) {
            for (Connection connection : new Connection[] {none, stale, current}) {
                for (String change : changes) {
                    SQLException e = refusal(connection, change);
                    assertEquals(FencingSqlState.CANNOT_GUARD, e.getSQLState(), change);
                    assertTrue(e.getMessage().contains("event scheduler"), e.getMessage());
                }
            }
        }
        assertEquals(0, events());
        // One made behind the fence (by another client) stays disabled and can be dropped with a current token only.
        TestDatabase.exec(raw, "CREATE EVENT " + event + " ON SCHEDULE AT CURRENT_TIMESTAMP + INTERVAL 1 DAY DISABLE DO"
                + " UPDATE " + table + " SET balance = 0");
        try (Connection none = fenced(0); Connection stale = fenced(MARK - 1)) {
            assertEquals(FencingSqlState.INVALID_TOKEN, refusal(none, "DROP EVENT " + event).getSQLState());
            assertEquals(FencingSqlState.STALE_TOKEN, refusal(stale, "DROP EVENT " + event).getSQLState());
        }
        assertEquals("DISABLED 1", eventState());
        try (Connection current = fenced(MARK); Statement s = current.createStatement()) {
            s.execute("DROP EVENT IF EXISTS " + event);
        }
        assertEquals(0, events());
    }

    /**
     * A stored program whose body sets the session's access mode would lift the server's read-only mode whenever it
     * runs, past any admission (found by review: a one-statement trigger {@code SET @@session.tx_read_only = 0},
     * fired by one admitted write, left the session read-write for the next un-admitted statement). Refused
     * whatever the token; the server's catalog is the judge.
     */
    @Test
    void aStoredProgramThatSetsTheAccessModeIsRefusedWhateverTheToken_C10() throws Exception {
        String[] texts = {"CREATE TRIGGER " + table + "_lift BEFORE INSERT ON " + table
                + " FOR EACH ROW SET @@session.tx_read_only = 0",
                "CREATE TRIGGER " + table + "_lift BEFORE UPDATE ON " + table + " FOR EACH ROW SET SESSION `tx_read_only` = 0",
                "CREATE PROCEDURE " + table + "_lift() SET SESSION TRANSACTION READ WRITE",
                "CREATE OR REPLACE DEFINER = CURRENT_USER PROCEDURE " + table + "_lift() SET completion_type = 1"};
        try (Connection current = fenced(MARK)) {
            for (String text : texts) {
                assertEquals(FencingSqlState.CANNOT_GUARD, refusal(current, text).getSQLState(), text);
            }
        }
        assertEquals(0, count("information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME = '"
                + table + "_lift'"));
        assertEquals(0, count("information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME = '"
                + table + "_lift'"));
    }

    /**
     * A server-wide variable outlives the session, and {@code init_connect} holds SQL every later connection of an
     * ordinary account runs without a token: setting it is a write (found by review: a stale owner planted an
     * {@code INSERT} there). The server's own value is the judge.
     */
    @Test
    void globalSettingsNeedACurrentToken_C2() throws Exception {
        String planted = "SET GLOBAL init_connect = 'UPDATE " + table + " SET balance = 0'";
        try (Connection none = fenced(0); Connection stale = fenced(MARK - 1)) {
            assertEquals(FencingSqlState.INVALID_TOKEN, refusal(none, planted).getSQLState());
            assertEquals(FencingSqlState.STALE_TOKEN, refusal(stale, planted).getSQLState());
            assertEquals(FencingSqlState.STALE_TOKEN,
                    refusal(stale, "SET @@global.init_connect = 'DELETE FROM " + table + "'").getSQLState());
        }
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT @@global.init_connect")) {
            assertTrue(rs.next());
            assertEquals("", rs.getString(1), "the stale SET GLOBAL changed the server");
        }
        try (Connection current = fenced(MARK); Statement s = current.createStatement()) {
            s.execute("SET GLOBAL max_connect_errors = @@global.max_connect_errors");
        }
    }

    /**
     * The driver's own transaction around an auto-commit write ends as the driver says, whatever the session's
     * {@code completion_type}: with {@code CHAIN} a plain {@code COMMIT} opened the next transaction, so later
     * auto-commit writes were never committed (found by review); with {@code RELEASE} it dropped the connection.
     */
    @Test
    void theCompletionTypeIsTheFencesAndAutoCommitWritesCommit_C10() throws Exception {
        for (String completion : new String[] {"CHAIN", "RELEASE"}) {
            try (Connection current = fenced(MARK); Statement s = current.createStatement()) {
                // A chained transaction would be opened by the server with no admission (SPEC C10): refused.
                SQLException refused = assertThrows(SQLException.class,
                        () -> s.execute("SET SESSION completion_type = '" + completion + "'"));
                assertEquals(FencingSqlState.CANNOT_GUARD, refused.getSQLState(), completion);
                for (int i = 0; i < 3; i++) {
                    assertEquals(1, s.executeUpdate("UPDATE " + table + " SET balance = balance + 1 WHERE id = 1"));
                    assertEquals(101 + i, balance(), completion + ": auto-commit write " + (i + 1) + " committed");
                }
            }
            TestDatabase.exec(raw, "UPDATE " + table + " SET balance = 100 WHERE id = 1");
        }
    }

    /** {@code UNLOCK TABLES} writes nothing: any connection may release its table locks, with or without a token. */
    @Test
    void unlockTablesNeedsNoToken() throws Exception {
        try (Connection current = fenced(MARK); Statement s = current.createStatement()) {
            s.execute("LOCK TABLES " + table + " WRITE");
            s.execute("UNLOCK TABLES");
        }
        for (long token : new long[] {0, MARK - 1}) {
            try (Connection c = fenced(token); Statement s = c.createStatement()) {
                s.execute("LOCK TABLES " + table + " READ");
                s.execute("UNLOCK TABLES");
                s.execute("unlock table");
            }
        }
    }

    private int events() throws SQLException {
        return count("information_schema.EVENTS WHERE EVENT_SCHEMA = DATABASE() AND EVENT_NAME LIKE '" + table
                + "\\_e%'");
    }

    private String eventState() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT STATUS, count(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA"
                     + " = DATABASE() AND EVENT_NAME = '" + table + "_e' GROUP BY STATUS")) {
            return rs.next() ? rs.getString(1) + " " + rs.getInt(2) : "none";
        }
    }

    private int count(String from) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + from)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
