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

/**
 * {@code SET fencing.token}, {@code RESET fencing.token} and {@code SET LOCAL fencing.token} sent as SQL (SPEC C6,
 * C9), on each database by a subclass. The resource's mark is 5; the database judges every write.
 */
abstract class LocalTokenTest {
    String raw;
    String table;
    String resource;
    Connection judge;

    abstract TestDatabase database();

    @BeforeEach
    void setUp() throws SQLException {
        raw = database().rawUrl();
        table = TestDatabase.unique("local");
        resource = TestDatabase.unique("local");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, v INT)",
                "INSERT INTO " + table + " VALUES (1, 0)");
        try (Connection c = connect("fencing.token=5"); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET v = 0");
        }
        judge = DriverManager.getConnection(raw);
    }

    @AfterEach
    void tearDown() throws SQLException {
        try (Statement s = judge.createStatement()) {
            s.execute("DROP TABLE " + table);
        }
        judge.close();
    }

    Connection connect(String... settings) throws SQLException {
        String[] all = new String[settings.length + 2];
        all[0] = "fencing.schema=create";
        all[1] = "fencing.resource=" + resource;
        System.arraycopy(settings, 0, all, 2, settings.length);
        return DriverManager.getConnection(TestDatabase.fenced(raw, all));
    }

    /** The value as the database holds it. */
    int value() throws SQLException {
        try (Statement s = judge.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM " + table)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    int add(Statement s, int n) throws SQLException {
        return s.executeUpdate("UPDATE " + table + " SET v = v + " + n);
    }

    /** A write on {@code s} is refused with {@code state}. */
    void assertRefused(String state, Statement s) {
        SQLException e = assertThrows(SQLException.class, () -> add(s, 1000));
        assertEquals(state, e.getSQLState(), e.getMessage());
    }

    @Test
    void sessionSetAndResetOfTheTokenWork_C6() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            assertRefused(FencingSqlState.INVALID_TOKEN, s);
            s.execute("SET fencing.token = 5");
            assertEquals(1, add(s, 1));
            s.execute("RESET fencing.token");
            assertRefused(FencingSqlState.INVALID_TOKEN, s);
            s.execute("SET SESSION fencing.token TO '5'");
            c.setAutoCommit(false);
            assertEquals(1, add(s, 10));
            c.commit();
            assertEquals(1, add(s, 100), "a session token outlives transactions");
            c.commit();
            s.execute("RESET fencing.token");
            assertRefused(FencingSqlState.INVALID_TOKEN, s);
            c.rollback();
            s.execute("SET fencing.token = 4");
            assertRefused(FencingSqlState.STALE_TOKEN, s);
            c.rollback();
        }
        assertEquals(111, value());
    }
}
