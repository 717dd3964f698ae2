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
 * On MariaDB through MariaDB Connector/J (the twin class: MySQL Connector/J), with the server as judge: what a
 * fenced connection holding a current token leaves behind each statement is what the raw driver leaves (issue 23).
 */
@RequiresMariaDb
class MariaDbRawParityTest {
    static final long TOKEN = 3;
    String raw;
    String table;
    String resource;

    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @BeforeEach
    void createData() throws SQLException {
        raw = database().rawUrl();
        table = TestDatabase.unique("parity");
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100), (2, 200)");
    }

    @AfterEach
    void dropData() throws SQLException {
        TestDatabase.exec(raw, "DROP TABLE IF EXISTS " + table);
    }

    Connection owner() throws SQLException {
        return TestDatabase.fencedAt(TOKEN, raw, "fencing.schema=create", "fencing.resource=" + resource);
    }

    int value(int id) throws SQLException {
        try (Connection judge = DriverManager.getConnection(raw); Statement s = judge.createStatement();
             ResultSet rs = s.executeQuery("SELECT v FROM " + table + " WHERE id = " + id)) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }

    static final String[] FAILING_READS = {"SELECT * FROM %s_nosuch", "SELECT nosuchcol FROM %s", "SELECT nosuchcol"};

    /**
     * Issue 23: MariaDB Connector/J marks the session in a transaction after any error packet; the next auto-commit
     * write was taken for one in a transaction begun without a token and refused.
     */
    @Test
    void aFailedReadDoesNotRefuseTheNextWrite() throws SQLException {
        for (String form : FAILING_READS) {
            String failing = String.format(form, table);
            try (Connection c = owner(); Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE " + table + " SET v = v + 1 WHERE id = 1");
                int before = value(1);
                SQLException e = assertThrows(SQLException.class, () -> s.executeQuery(failing).close());
                assertTrue(e.getSQLState().startsWith("42"), failing + ": " + e);
                assertEquals(1, s.executeUpdate("UPDATE " + table + " SET v = v + 1 WHERE id = 1"), failing);
                assertEquals(before + 1, value(1), failing);
            }
        }
    }

    @Test
    void aFailedReadInsideATransactionLeavesItAdmittedAndItsWritesCommit() throws SQLException {
        for (String form : FAILING_READS) {
            String failing = String.format(form, table);
            int before = value(1);
            try (Connection c = owner(); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                assertThrows(SQLException.class, () -> s.executeQuery(failing).close());
                assertEquals(1, s.executeUpdate("UPDATE " + table + " SET v = v + 1 WHERE id = 1"), failing);
                assertThrows(SQLException.class, () -> s.executeQuery(failing).close());
                assertEquals(1, s.executeUpdate("UPDATE " + table + " SET v = v + 1 WHERE id = 1"), failing);
                c.commit();
            }
            assertEquals(before + 2, value(1), failing);
        }
    }

    @Test
    void aFailedWriteDoesNotRefuseTheNextWrite() throws SQLException {
        try (Connection c = owner(); Statement s = c.createStatement()) {
            assertThrows(SQLException.class, () -> s.executeUpdate("INSERT INTO " + table + " VALUES (1, 1)"));
            assertEquals(1, s.executeUpdate("INSERT INTO " + table + " VALUES (3, 300)"));
        }
        assertEquals(300, value(3));
    }

    /** The outcome of {@code sql} on {@code c}: its update count, or the server's error code. */
    static String outcome(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            return "ran " + s.executeUpdate(sql);
        } catch (SQLException e) {
            return e.getSQLState() + " " + e.getErrorCode();
        }
    }

    int rows() throws SQLException {
        try (Connection judge = DriverManager.getConnection(raw); Statement s = judge.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }

    /** The server's error code for a read of {@code other} on {@code c}, or "read" when it ran. */
    static String readOf(Connection c, String other) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + other)) {
            return "read";
        } catch (SQLException e) {
            return String.valueOf(e.getErrorCode());
        }
    }

    /**
     * Issue 23: the guard's START TRANSACTION released the caller's LOCK TABLES, so a TRUNCATE of a table locked READ
     * emptied it where the raw driver refuses it (1099). Now a guarded write under table locks is refused (ZF004),
     * nothing sent, the locks still held (a table not locked still cannot be read: 1100, as raw).
     */
    @Test
    void aWriteUnderLockTablesReadIsNeverOneTheRawDriverRefuses() throws SQLException {
        TestDatabase.exec(raw, "CREATE TABLE " + table + "_b (id INT PRIMARY KEY)");
        try {
            String raws;
            try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement()) {
                s.execute("LOCK TABLES " + table + " READ");
                raws = outcome(c, "TRUNCATE TABLE " + table) + " / " + outcome(c, "UPDATE " + table + " SET v = 0")
                        + " / " + readOf(c, table + "_b");
            }
            assertEquals("HY000 1099 / HY000 1099 / 1100", raws);
            try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement()) {
                // why the fence cannot hand the raw driver's 1099 back: its sessions are read-only on the server until
                // admitted (SPEC C10), and there the server answers the access mode first (docs/mariadb.md)
                s.execute("SET SESSION TRANSACTION READ ONLY");
                s.execute("LOCK TABLES " + table + " READ");
                assertEquals("25006 1792 / 25006 1792", outcome(c, "TRUNCATE TABLE " + table) + " / "
                        + outcome(c, "UPDATE " + table + " SET v = 0"));
            }
            try (Connection c = owner(); Statement s = c.createStatement()) {
                s.execute("LOCK TABLES " + table + " READ");
                assertEquals(FencingSqlState.CANNOT_GUARD + " 0", outcome(c, "TRUNCATE TABLE " + table));
                assertEquals(FencingSqlState.CANNOT_GUARD + " 0", outcome(c, "UPDATE " + table + " SET v = 0"));
                assertEquals("1100", readOf(c, table + "_b"), "the caller's table locks were released");
                s.execute("UNLOCK TABLES");
                assertEquals("ran 1", outcome(c, "UPDATE " + table + " SET v = 7 WHERE id = 2"));
                assertEquals("read", readOf(c, table + "_b"));
            }
            assertEquals(2, rows());
            assertEquals(100, value(1));
            assertEquals(7, value(2));
        } finally {
            TestDatabase.exec(raw, "DROP TABLE IF EXISTS " + table + "_b");
        }
    }

    /** LOCK TABLES t WRITE, then a write with a token: refused, and t stays locked against other sessions. */
    @Test
    void aWriteUnderLockTablesWriteKeepsTheLock() throws SQLException {
        for (boolean autoCommit : new boolean[] {true, false}) {
            try (Connection c = owner(); Statement s = c.createStatement()) {
                c.setAutoCommit(autoCommit);
                s.execute("LOCK TABLES " + table + " WRITE");
                assertEquals(FencingSqlState.CANNOT_GUARD + " 0",
                        outcome(c, "INSERT INTO " + table + " VALUES (9, 9)"), "auto-commit " + autoCommit);
                try (Connection other = DriverManager.getConnection(raw); Statement o = other.createStatement()) {
                    o.execute("SET SESSION lock_wait_timeout = 1");
                    SQLException e = assertThrows(SQLException.class,
                            () -> o.executeQuery("SELECT COUNT(*) FROM " + table).close());
                    assertEquals(1205, e.getErrorCode(), "another session read the locked table: " + e);
                }
                // LOCK TABLES again releases the old locks itself: it is not refused for them
                s.execute("LOCK TABLES " + table + " READ");
                s.execute("UNLOCK TABLES");
                if (!autoCommit) {
                    c.commit();
                }
            }
        }
        assertEquals(2, rows());
    }

    /**
     * What the session says after {@code setup} and {@code write} (each {@code %s} the table) on {@code c}: the
     * write's update count, its statement's warnings (code and message), and the values of {@code probe}.
     */
    static String sessionAfter(Connection c, String table, String write, String probe) throws SQLException {
        StringBuilder said = new StringBuilder();
        try (Statement s = c.createStatement()) {
            said.append("count ").append(s.executeUpdate(String.format(write, table)));
            for (java.sql.SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                said.append(", warning ").append(w.getErrorCode()).append(' ').append(w.getMessage());
            }
            try (ResultSet rs = s.executeQuery(probe)) {
                while (rs.next()) {
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        said.append(", ").append(rs.getMetaData().getColumnLabel(i)).append(' ').append(rs.getString(i));
                    }
                }
            }
        }
        return said.toString();
    }

    /** Runs {@code write} then {@code probe} raw and fenced (token current) on twin tables; both say the same. */
    void assertSameSession(boolean autoCommit, String write, String probe) throws SQLException {
        String twin = table + "_raw";
        TestDatabase.exec(raw, "CREATE TABLE " + twin + " LIKE " + table, "INSERT INTO " + twin + " SELECT * FROM " + table);
        try (Connection r = DriverManager.getConnection(raw); Connection f = owner()) {
            r.setAutoCommit(autoCommit);
            f.setAutoCommit(autoCommit);
            String rawSaid = sessionAfter(r, twin, write, probe);
            String fencedSaid = sessionAfter(f, table, write, probe).replace(table, twin);
            if (!autoCommit) {
                r.commit();
                f.commit();
            }
            assertEquals(rawSaid, fencedSaid, write + " then " + probe + ", auto-commit " + autoCommit);
        } finally {
            TestDatabase.exec(raw, "DROP TABLE IF EXISTS " + twin);
        }
    }

    @Test
    void rowCountAfterAGuardedWriteInATransactionIsTheWrites() throws SQLException {
        assertSameSession(false, "UPDATE %s SET v = v + 1", "SELECT ROW_COUNT() AS rc");
        assertSameSession(false, "DELETE FROM %s WHERE id = 2", "SELECT ROW_COUNT() AS rc");
    }

    @Test
    void warningsAfterAGuardedInsertIgnoreAreTheServers() throws SQLException {
        for (boolean autoCommit : new boolean[] {true, false}) {
            assertSameSession(autoCommit, "INSERT IGNORE INTO %s VALUES (1, 5), (7, 7)", "SELECT 1 AS one");
            assertSameSession(autoCommit, "UPDATE IGNORE %s SET id = 1 WHERE id = 2", "SHOW WARNINGS");
        }
    }

    @Test
    void lastInsertIdAndFoundRowsAfterAGuardedWriteAreTheServers() throws SQLException {
        TestDatabase.exec(raw, "ALTER TABLE " + table + " MODIFY id INT NOT NULL AUTO_INCREMENT");
        for (boolean autoCommit : new boolean[] {true, false}) {
            assertSameSession(autoCommit, "INSERT INTO %s (v) VALUES (1), (2)", "SELECT LAST_INSERT_ID() AS li");
        }
        // FOUND_ROWS() after a guarded UPDATE is 1 where raw says the UPDATE's rows in full-suite runs (CI), and as raw
        // when this class runs alone: listed in docs/compatibility.md until its cause is found
    }

    /**
     * The one session difference left (docs/mariadb.md): after an auto-commit write the guard commits its own
     * transaction, and MariaDB sets ROW_COUNT() to 0 for a COMMIT. Asserted as it is, so that a change shows.
     */
    @Test
    void rowCountAfterAGuardedAutoCommitWriteIsTheDriversCommits() throws SQLException {
        try (Connection r = DriverManager.getConnection(raw); Connection f = owner()) {
            assertEquals("count 2, rc 2", sessionAfter(r, table, "UPDATE %s SET v = v + 1", "SELECT ROW_COUNT() AS rc"));
            assertEquals("count 2, rc 0", sessionAfter(f, table, "UPDATE %s SET v = v + 1", "SELECT ROW_COUNT() AS rc"));
        }
    }
}
