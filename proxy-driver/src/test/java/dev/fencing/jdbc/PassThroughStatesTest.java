package dev.fencing.jdbc;

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

/**
 * The underlying driver's own SQLStates and texts come back untouched where the fence refuses nothing (SPEC C8):
 * a query string on a prepared statement gets each driver's own refusal (H2's 90130, pgjdbc's 42809), never one
 * copied from another driver; a write among them still needs a token, and changes nothing.
 */
abstract class PassThroughStatesTest {
    String raw;
    String table;

    abstract TestDatabase database();

    @BeforeEach
    void createTable() throws SQLException {
        raw = database().rawUrl();
        table = TestDatabase.unique("pass");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, n INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 0)");
    }

    @AfterEach
    void dropTable() throws SQLException {
        TestDatabase.exec(raw, "DROP TABLE " + table);
    }

    /** What the underlying driver itself says when a prepared statement is given a query string. */
    private SQLException rawRefusal() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw);
             PreparedStatement ps = c.prepareStatement("SELECT n FROM " + table)) {
            return assertThrows(SQLException.class, () -> ps.executeQuery("SELECT 1"));
        }
    }

    private Connection fenced(String... settings) throws SQLException {
        String[] all = new String[settings.length + 2];
        all[0] = "fencing.schema=create";
        all[1] = "fencing.resource=" + table;
        System.arraycopy(settings, 0, all, 2, settings.length);
        return DriverManager.getConnection(TestDatabase.fenced(raw, all));
    }

    @Test
    void aQueryStringOnAPreparedStatementGetsTheDriversOwnRefusal_C8() throws SQLException {
        SQLException expected = rawRefusal();
        try (Connection c = fenced("fencing.token=3");
             PreparedStatement ps = c.prepareStatement("SELECT n FROM " + table)) {
            SQLException read = assertThrows(SQLException.class, () -> ps.executeQuery("SELECT 1"));
            assertEquals(expected.getSQLState(), read.getSQLState());
            assertEquals(expected.getMessage(), read.getMessage());
            SQLException write = assertThrows(SQLException.class,
                    () -> ps.executeUpdate("UPDATE " + table + " SET n = 9"));
            assertEquals(expected.getSQLState(), write.getSQLState(), write.getMessage());
        }
        assertEquals(0, n());
    }

    @Test
    void aWriteByQueryStringOnAPreparedStatementStillNeedsAToken_C1() throws SQLException {
        try (Connection c = fenced(); PreparedStatement ps = c.prepareStatement("SELECT n FROM " + table)) {
            FencingRefusedException e = assertThrows(FencingRefusedException.class,
                    () -> ps.execute("UPDATE " + table + " SET n = 9"));
            assertEquals(FencingSqlState.INVALID_TOKEN, e.getSQLState());
            assertEquals(FencingSqlState.CANNOT_GUARD, assertThrows(FencingRefusedException.class,
                    () -> ps.addBatch("UPDATE " + table + " SET n = 9")).getSQLState());
        }
        assertEquals(0, n());
    }

    private int n() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT n FROM " + table + " WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
