package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Audit mode ({@code fencing.mode=audit}): what enforce mode refuses runs as the raw driver would and is
 * recorded with its text (no values), reason, SQLState, call site and count; what enforce mode allows behaves the
 * same. Every test names its own table, so findings of other tests in this JVM do not interfere.
 */
class AuditModeTest {
    private String raw;
    private String table;
    private String resource;

    private void setUp(TestDatabase database) throws SQLException {
        raw = database.rawUrl();
        table = TestDatabase.unique("audited");
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100), (2, 200)");
    }

    /** Drops the test's table (on PostgreSQL it would stay on the shared server); epoch rows cannot be deleted (C9). */
    @AfterEach
    void dropTable() throws SQLException {
        if (table == null) {
            return;
        }
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    private Connection connect(String mode) throws SQLException {
        return DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resource=" + resource, "fencing.mode=" + mode, "fencing.audit.file=target/fencing-audit.json"));
    }

    private List<FencingAudit.Finding> findings() {
        return FencingAudit.report().findings().stream()
                .filter(f -> f.sql().toLowerCase().contains(table.toLowerCase()) || resource.equals(f.resource()))
                .collect(Collectors.toList());
    }

    private FencingAudit.Finding finding(String sqlStart) {
        List<FencingAudit.Finding> matching = findings().stream()
                .filter(f -> f.sql().startsWith(sqlStart)).collect(Collectors.toList());
        assertEquals(1, matching.size(), () -> "one finding for " + sqlStart + " in " + findings());
        return matching.get(0);
    }

    private long mark() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw);
             PreparedStatement ps = c.prepareStatement("SELECT epoch FROM fencing_epoch WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    private int balance(int id) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM " + table + " WHERE id = " + id)) {
            return rs.next() ? rs.getInt(1) : -1;
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void tokenlessWritesRunAsTheRawDriverRunsThemAndAreCountedWithoutValues_C1(TestDatabase database) throws Exception {
        setUp(database);
        try (Connection c = connect("audit")) {
            try (PreparedStatement update = c.prepareStatement("UPDATE " + table + " SET balance = ? WHERE id = ?")) {
                for (int i = 0; i < 3; i++) {
                    update.setInt(1, 4711 + i);
                    update.setInt(2, 1);
                    assertEquals(1, update.executeUpdate(), "the update count is the raw driver's");
                }
            }
            try (Statement s = c.createStatement()) {
                assertEquals(1, s.executeUpdate("INSERT INTO " + table + " VALUES (3, 8150)"));
                assertEquals(1, s.executeUpdate("INSERT INTO " + table + " VALUES (4, 8151)"));
                s.addBatch("DELETE FROM " + table + " WHERE id = 3");
                s.addBatch("DELETE FROM " + table + " WHERE id = 4");
                assertEquals(2, s.executeBatch().length);
            }
        }
        assertEquals(4713, balance(1));
        assertEquals(-1, balance(3), "the batch ran");
        assertEquals(0, mark(), "no token, no high-water mark");

        FencingAudit.Finding update = finding("UPDATE " + table);
        assertEquals("UPDATE " + table + " SET balance = ? WHERE id = ?", update.sql());
        assertEquals(3, update.count(), "the same text is counted, not repeated");
        assertEquals(FencingSqlState.INVALID_TOKEN, update.sqlState());
        assertEquals("no token for resource '" + resource + "'", update.reason());
        assertFalse(update.refused());
        assertEquals(1, update.callSites().size());
        assertTrue(update.callSites().get(0).startsWith(getClass().getName()
                + ".tokenlessWritesRunAsTheRawDriverRunsThemAndAreCountedWithoutValues_C1(AuditModeTest.java:"),
                update.callSites().toString());
        assertEquals(2, finding("INSERT INTO " + table).count(), "literals are values too: both inserts are one text");
        assertEquals("DELETE FROM " + table + " WHERE id = ?", finding("DELETE FROM " + table).sql());
        String json = FencingAudit.report().toJson();
        assertFalse(json.contains("4711") || json.contains("8150"), "values never reach the report");
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void staleWritesRunUntouchedAndNeverMoveTheMark_C2(TestDatabase database) throws Exception {
        setUp(database);
        try (Connection c = connect("audit")) {
            FencedConnection fenced = c.unwrap(FencedConnection.class);
            fenced.setFencingToken(5);
            try (Statement s = c.createStatement()) {
                assertEquals(1, s.executeUpdate("UPDATE " + table + " SET balance = 150 WHERE id = 1"));
                assertEquals(5, mark(), "an allowed write advances the mark as in enforce mode");
                fenced.setFencingToken(3);
                assertEquals(1, s.executeUpdate("UPDATE " + table + " SET balance = 130 WHERE id = 1"));
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?)")) {
                    insert.setInt(1, 5);
                    insert.setInt(2, 500);
                    assertEquals(1, insert.executeUpdate(), "autocommit, guard ahead of the statement");
                }
                c.setAutoCommit(false);
                assertEquals(1, s.executeUpdate("UPDATE " + table + " SET balance = 230 WHERE id = 2"));
                assertEquals(1, s.executeUpdate("DELETE FROM " + table + " WHERE id = 5"));
                c.commit();
            }
        }
        assertEquals(130, balance(1));
        assertEquals(230, balance(2));
        assertEquals(-1, balance(5));
        assertEquals(5, mark(), "a stale token never moves the mark, not even in audit mode");
        FencingAudit.Finding stale = finding("UPDATE " + table + " SET balance = ? WHERE id = ?");
        assertEquals(FencingSqlState.STALE_TOKEN, stale.sqlState());
        assertEquals(2, stale.count());
        assertEquals(1, finding("INSERT INTO " + table).count());
        assertEquals(1, finding("DELETE FROM " + table).count(),
                "inside a transaction each stale statement is recorded: it never held the lock");
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void whatEnforceModeRefusesWithoutATokenRunsRawAndIsRecorded_C5(TestDatabase database) throws Exception {
        setUp(database);
        String vendorName;
        try (Connection c = connect("audit"); Statement s = c.createStatement()) {
            Class<?> vendor = database == TestDatabase.H2 ? org.h2.jdbc.JdbcConnection.class
                    : database == TestDatabase.MARIADB ? org.mariadb.jdbc.Connection.class
                    : database == TestDatabase.MYSQL ? com.mysql.cj.jdbc.JdbcConnection.class
                    : org.postgresql.PGConnection.class;
            vendorName = vendor.getName();
            assertTrue(vendor.isInstance(c.unwrap(vendor)), "audit mode hands out what the raw driver would");
            try {
                s.executeUpdate("UPDATE fencing_epoch SET epoch = epoch WHERE resource = '" + resource + "'");
                throw new AssertionError("the fence's own tables are refused in every mode");
            } catch (FencingRefusedException fenceTable) {
                assertEquals(FencingSqlState.PROTECTED, fenceTable.getSQLState());
            }
            s.execute("SET fencing.token = 'not-a-number'");
            assertEquals(1, s.executeUpdate("UPDATE " + table + " SET balance = 2 WHERE id = 2"),
                    "an invalid token is recorded and the write still runs");
        }
        List<FencingAudit.Finding> all = FencingAudit.report().findings().stream()
                .filter(f -> f.callSites().stream().anyMatch(site -> site.contains(".whatEnforceModeRefuses")))
                .collect(Collectors.toList());
        assertTrue(all.stream().anyMatch(f -> f.sql().equals("UPDATE fencing_epoch SET epoch = epoch WHERE resource = ?")
                && f.sqlState().equals(FencingSqlState.PROTECTED)), all.toString());
        assertTrue(all.stream().anyMatch(f -> f.sql().equals("unwrap(" + vendorName + ")")
                && f.reason().equals("unwrap to " + vendorName + " (an unguarded vendor object)")), all.toString());
        assertTrue(all.stream().anyMatch(f -> f.sql().equals("SET fencing.token")
                && f.reason().startsWith("invalid token from SET fencing.token")), all.toString());
        assertEquals(2, balance(2));
    }

    @Test
    void unguardableTextRunsRawInAuditModeAndIsRefusedInEnforceMode_C5() throws Exception {
        setUp(TestDatabase.H2);
        String mixed = "UPDATE " + table + " SET balance = 7 WHERE id = 1; COMMIT";
        try (Connection c = connect("enforce"); Statement s = c.createStatement()) {
            FencingRefusedException e = assertThrows(FencingRefusedException.class, () -> s.execute(mixed));
            assertEquals(FencingSqlState.CANNOT_GUARD, e.getSQLState());
        }
        assertEquals(100, balance(1));
        try (Connection c = connect("audit"); Statement s = c.createStatement()) {
            s.execute(mixed);
        }
        assertEquals(7, balance(1));
        List<FencingAudit.Finding> mixedFindings = findings().stream()
                .filter(f -> f.sqlState().equals(FencingSqlState.CANNOT_GUARD)).collect(Collectors.toList());
        assertEquals(2, mixedFindings.size(), mixedFindings.toString());
        assertTrue(mixedFindings.stream().anyMatch(FencingAudit.Finding::refused), "enforce mode records its refusal");
        assertTrue(mixedFindings.stream().anyMatch(f -> !f.refused()), "audit mode records what it let through");
        assertEquals("UPDATE " + table + " SET balance = ? WHERE id = ?; COMMIT", mixedFindings.get(0).sql());
    }

    @Test
    void reportIsWrittenAsJsonAndSummaryAndSinceCountsOnlyNewFindings(@TempDir Path dir) throws Exception {
        setUp(TestDatabase.H2);
        FencingAudit.Report before = FencingAudit.report();
        try (Connection c = connect("audit"); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET balance = 1 WHERE id = 1");
            s.executeUpdate("UPDATE " + table + " SET balance = 2 WHERE id = 2");
        }
        FencingAudit.Report since = FencingAudit.report().since(before);
        assertEquals(2, since.total());
        assertEquals(1, since.findings().size());
        Path json = dir.resolve("audit/report.json");
        since.write(json);
        String text = Files.readString(json);
        assertTrue(text.contains("\"total\": 2") && text.contains("\"sql\": \"UPDATE " + table
                + " SET balance = ? WHERE id = ?\"") && text.contains("\"outcome\": \"ran-unguarded\""), text);
        String summary = Files.readString(dir.resolve("audit/report.txt"));
        assertTrue(summary.startsWith("fencing audit: 2 statements that enforce mode refuses (1 distinct)"), summary);
        assertTrue(summary.contains("at " + getClass().getName()), summary);
        assertTrue(summary.contains("How to fix:\n  ZF001: the code that writes holds no token: run it inside"
                + " Fencing.scope(resource, token)"), summary);
    }

    @Test
    void aBadModeIsAConfigurationError() throws Exception {
        setUp(TestDatabase.H2);
        SQLException e = assertThrows(SQLException.class, () -> connect("relaxed"));
        assertEquals(FencingSqlState.CONFIGURATION, e.getSQLState());
        assertTrue(e.getMessage().contains("fencing.mode must be 'enforce' or 'audit'"), e.getMessage());
    }

    /** A JVM whose fencing connection runs in audit mode writes the report when it exits. */
    @Test
    void theReportIsWrittenAtExit(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("exit-report.json");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), AuditAtExit.class.getName(), json.toString())
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes());
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output);
        String headline = "fencing audit: 1 statements that enforce mode refuses (1 distinct): 1 ran unguarded in"
                + " audit mode, 0 were refused";
        assertTrue(output.contains(headline + "; report written to " + json), output);
        String text = Files.readString(json);
        assertTrue(text.contains("\"sql\": \"UPDATE exit_table SET n = ?\"") && text.contains("\"count\": 1")
                && text.contains("AuditAtExit.main(AuditAtExit.java:"), text);
        String summary = Files.readString(dir.resolve("exit-report.txt"));
        assertTrue(summary.startsWith(headline + ".\n") && summary.contains("UPDATE exit_table SET n = ?"), summary);
    }
}
