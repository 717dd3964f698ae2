package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC C5 and C9, issue 21 causes 1 to 4 and 6: where the driver's reading of a text differed from the server's
 * (function names that look like keywords, MariaDB identifiers starting with a digit or holding multi-byte
 * characters, a change of the client character set inside a multi-statement text, comments between the words of
 * a lock or of {@code PREPARE TRANSACTION}, a name the server folds to the epoch table's). The database judges: a
 * raw connection reads the row and the mark after every refusal. Each database's subclass holds its cases.
 */
abstract class ServerReadingTest {
    static final long MARK = 5;

    String raw;
    String table;
    String resource;
    Connection judge;

    abstract TestDatabase database();

    /** The URL the tests connect to; a subclass may add settings (a schema of the run's own). */
    String url() {
        return raw;
    }

    @BeforeEach
    void createData() throws Exception {
        raw = database().rawUrl();
        table = TestDatabase.unique("rd");
        resource = TestDatabase.unique("res");
        createSchema();
        TestDatabase.exec(url(), "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100)");
        judge = DriverManager.getConnection(url());
        try (Connection c = owner(MARK); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET balance = balance WHERE id = 1");
        }
    }

    /** A schema of the run's own, where names the run cannot make unique live. */
    void createSchema() throws SQLException {
    }

    @AfterEach
    void dropData() throws SQLException {
        judge.close();
        dropAll();
    }

    void dropAll() throws SQLException {
        TestDatabase.dropNamed(raw, table);
    }

    Connection owner(long token) throws SQLException {
        return DriverManager.getConnection(TestDatabase.fenced(url(), "fencing.schema=create",
                "fencing.resource=" + resource, "fencing.token=" + token));
    }

    Connection tokenless(String... settings) throws SQLException {
        String[] all = new String[settings.length + 1];
        all[0] = "fencing.resource=" + resource;
        System.arraycopy(settings, 0, all, 1, settings.length);
        return DriverManager.getConnection(TestDatabase.fenced(url(), all));
    }

    String snapshot() throws SQLException {
        try (Statement s = judge.createStatement()) {
            String row;
            try (ResultSet rs = s.executeQuery("SELECT balance FROM " + table + " WHERE id = 1")) {
                rs.next();
                row = "v " + rs.getInt(1);
            }
            try (ResultSet rs = s.executeQuery("SELECT epoch FROM fencing_epoch WHERE resource = '" + resource + "'")) {
                return row + ", mark " + (rs.next() ? rs.getLong(1) : 0);
            }
        }
    }

    /** {@code sql} on {@code c} fails with one of the fence's states (ZF...), and the row and the mark are unchanged. */
    String refusedAndNothingChanged(Connection c, String sql) throws SQLException {
        String before = snapshot();
        SQLException e;
        try (Statement s = c.createStatement()) {
            e = assertThrows(SQLException.class, () -> s.execute(sql), sql);
        }
        assertTrue(e.getSQLState() != null && e.getSQLState().startsWith("ZF"), sql + ": " + e.getSQLState()
                + " " + e.getMessage());
        assertEquals(before, snapshot(), sql);
        return e.getSQLState();
    }

    /** {@link #refusedAndNothingChanged(Connection, String)} on a connection of its own with no token. */
    String refusedWithoutToken(String sql) throws SQLException {
        try (Connection c = tokenless()) {
            return refusedAndNothingChanged(c, sql);
        }
    }

    /** A lock on the epoch table, with comments between its words, needs the fence (C5). */
    void aLockOnTheEpochTableWithCommentsBetweenItsWordsIsRefused(String... locks) throws SQLException {
        for (String lock : locks) {
            assertEquals(FencingSqlState.PROTECTED, refusedWithoutToken(lock), lock);
        }
    }
}
