package dev.fencing.jdbc.junit;

import dev.fencing.jdbc.FencingAudit;
import dev.fencing.jdbc.FencingMode;
import dev.fencing.jdbc.FencingRefusedException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The JUnit extension, run on sample suites (the nested classes, which Surefire does not run by themselves)
 * through JUnit's own test kit, so that a suite failing is something this test can observe.
 */
class FencingExtensionTest {
    private static final String RAW = "jdbc:h2:mem:extension;DB_CLOSE_DELAY=-1";
    static Path reportFile;

    @BeforeAll
    static void createTable() throws SQLException {
        try (Connection c = DriverManager.getConnection(RAW); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ext_item (id INT PRIMARY KEY, n INT)");
            s.execute("INSERT INTO ext_item VALUES (1, 0)");
        }
    }

    /**
     * The audit log is JVM-wide and keeps at most a fixed number of distinct statements; other suites in this JVM
     * (the bypass and fuzz tests) fill it, so each case here starts from an empty log.
     */
    @BeforeEach
    void emptyTheAuditLog() {
        FencingAudit.reset();
    }

    private static Events run(Class<?> suite) {
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(suite)).execute().testEvents();
    }

    private static int n() throws SQLException {
        try (Connection c = DriverManager.getConnection(RAW); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT n FROM ext_item WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    static int increment(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            return s.executeUpdate("UPDATE ext_item SET n = n + 1 WHERE id = 1");
        }
    }

    /** A legacy suite before tokens are wired: audit mode lets its writes run and reports them. */
    static class AuditSuite {
        @RegisterExtension
        static final FencingExtension FENCING = FencingExtension.forUrl(RAW).reportTo(reportFile);

        @Test
        void writesWithoutAToken(DataSource dataSource) throws SQLException {
            assertEquals(1, increment(dataSource));
        }
    }

    @Test
    void auditModeLetsTheSuitePassAndWritesTheReport(@TempDir Path dir) throws Exception {
        reportFile = dir.resolve("report.json");
        int before = n();
        run(AuditSuite.class).assertStatistics(stats -> stats.succeeded(1).failed(0));
        assertEquals(before + 1, n(), "audit mode ran the write");
        String json = Files.readString(reportFile);
        assertTrue(json.contains("\"sql\": \"UPDATE ext_item SET n = n + ? WHERE id = ?\"")
                && json.contains("FencingExtensionTest.increment(FencingExtensionTest.java:"), json);
        assertTrue(Files.readString(dir.resolve("report.txt")).contains("no token for resource 'default'"));
    }

    /** Audit mode as a gate: the writes still run, but a test that would be refused fails. */
    static class AuditGateSuite {
        @RegisterExtension
        static final FencingExtension FENCING = FencingExtension.forUrl(RAW).failOnRefusals(true).reportTo(reportFile);

        @Test
        void writesWithoutAToken(DataSource dataSource) throws SQLException {
            increment(dataSource);
        }
    }

    @Test
    void auditModeFailsATestThatWouldBeRefusedWhenAskedTo(@TempDir Path dir) throws Exception {
        reportFile = dir.resolve("report.json");
        int before = n();
        Events events = run(AuditGateSuite.class);
        events.assertStatistics(stats -> stats.succeeded(0).failed(1));
        assertEquals(before + 1, n());
        Throwable failure = events.failed().stream().findFirst().orElseThrow().getPayload(
                org.junit.platform.engine.TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow();
        assertTrue(failure.getMessage().contains("writesWithoutAToken(DataSource) caused refusals")
                && failure.getMessage().contains("UPDATE ext_item SET n = n + ? WHERE id = ?"), failure.getMessage());
    }

    /** Legacy code that catches and logs SQLExceptions: enforce mode's refusal would go unnoticed. */
    static class SwallowingEnforceSuite {
        @RegisterExtension
        static final FencingExtension FENCING = FencingExtension.forUrl(RAW).mode(FencingMode.ENFORCE)
                .reportTo(reportFile);

        @Test
        void swallowsTheRefusal(DataSource dataSource) {
            FencingRefusedException e = assertThrows(FencingRefusedException.class, () -> increment(dataSource));
            System.err.println("legacy code logs and carries on: " + e.getMessage());
        }
    }

    @Test
    void enforceModeFailsATestWhoseRefusalWasSwallowed_C1(@TempDir Path dir) throws Exception {
        reportFile = dir.resolve("report.json");
        int before = n();
        run(SwallowingEnforceSuite.class).assertStatistics(stats -> stats.succeeded(0).failed(1));
        assertEquals(before, n(), "enforce mode refused the write");
    }

    /** Tokens wired: every test, and the class's setup, runs in a scope. */
    static class ScopedEnforceSuite {
        @RegisterExtension
        static final FencingExtension FENCING = FencingExtension.forUrl("jdbc:fencing:" + RAW.substring(5))
                .mode(FencingMode.ENFORCE).scope("items", 4).reportTo(reportFile);

        @BeforeAll
        static void setUpRuns() throws SQLException {
            increment(FENCING.dataSource());
        }

        @Test
        void writesInTheScope(DataSource dataSource) throws SQLException {
            assertEquals(1, increment(dataSource));
        }

        @Test
        void writesAgain(DataSource dataSource) throws SQLException {
            assertEquals(1, increment(dataSource));
        }
    }

    @Test
    void enforceModeWithAScopePassesAndAdvancesTheMark_C2(@TempDir Path dir) throws Exception {
        reportFile = dir.resolve("report.json");
        int before = n();
        run(ScopedEnforceSuite.class).assertStatistics(stats -> stats.succeeded(2).failed(0));
        assertEquals(before + 3, n());
        try (Connection c = DriverManager.getConnection(RAW); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT epoch FROM fencing_epoch WHERE resource = 'items'")) {
            assertTrue(rs.next());
            assertEquals(4, rs.getLong(1));
        }
    }

    /** Legacy set-up code that swallows a refusal in {@code @BeforeAll}: the tests pass, the class must not. */
    static class SwallowingSetUpSuite {
        @RegisterExtension
        static final FencingExtension FENCING = FencingExtension.forUrl(RAW).mode(FencingMode.ENFORCE)
                .reportTo(reportFile);

        @BeforeAll
        static void setUpSwallows() {
            try {
                increment(FENCING.dataSource());
            } catch (SQLException e) {
                System.err.println("legacy set-up logs and carries on: " + e.getMessage());
            }
        }

        @Test
        void passes() {
        }
    }

    @Test
    void enforceModeFailsAClassWhoseSetUpSwallowedARefusal_C1(@TempDir Path dir) throws Exception {
        reportFile = dir;
        int before = n();
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter").selectors(
                selectClass(SwallowingSetUpSuite.class)).execute();
        results.testEvents().assertStatistics(stats -> stats.succeeded(1).failed(0));
        Events failed = results.containerEvents().failed();
        assertEquals(1, failed.count(), "the class fails");
        Throwable failure = failed.stream().findFirst().orElseThrow().getPayload(
                org.junit.platform.engine.TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow();
        assertTrue(failure.getMessage().contains("caused 1 refusal(s) outside its tests"), failure.getMessage());
        assertEquals(before, n(), "enforce mode refused the write");
        assertTrue(Files.exists(dir.resolve(SwallowingSetUpSuite.class.getName() + ".json")),
                "reportTo(directory) writes <test class>.json in it");
    }

    /** Application code that opens its own fencing connection, with no fencing.schema of its own. */
    static class OwnConnectionSuite {
        static final String OWN = "jdbc:h2:mem:extension_own;DB_CLOSE_DELAY=-1";

        @RegisterExtension
        static final FencingExtension FENCING = FencingExtension.forUrl(OWN).mode(FencingMode.ENFORCE)
                .scope("own", 2).reportTo(reportFile);

        @Test
        void writesThroughItsOwnUrl() throws SQLException {
            try (Connection c = DriverManager.getConnection("jdbc:fencing:" + OWN.substring(5));
                 Statement s = c.createStatement()) {
                s.execute("CREATE TABLE own_item (n INT)");
                assertEquals(1, s.executeUpdate("INSERT INTO own_item VALUES (1)"));
            }
        }
    }

    @Test
    void applicationCodeOpeningItsOwnConnectionsFindsTheEpochTable(@TempDir Path dir) throws Exception {
        reportFile = dir.resolve("report.json");
        run(OwnConnectionSuite.class).assertStatistics(stats -> stats.succeeded(1).failed(0));
        try (Connection c = DriverManager.getConnection(OwnConnectionSuite.OWN); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM own_item")) {
            rs.next();
            assertEquals(1, rs.getInt(1));
            s.execute("DROP ALL OBJECTS");
        }
    }

    /**
     * Application code under test with its own audit-mode URL and no {@code fencing.audit.file}: its report goes
     * to the extension's whole-run report under {@code target/fencing-audit}, never into the working directory.
     */
    @Test
    void theApplicationsOwnAuditUrlWritesOnlyUnderTarget(@TempDir Path dir) throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), dev.fencing.jdbc.AuditAtExit.class.getName(),
                "--under-extension").directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes());
        assertTrue(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output);
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            assertEquals(java.util.List.of(dir.resolve("target")), files.toList(), "nothing in the project root");
        }
        String json = Files.readString(dir.resolve("target/fencing-audit/jvm.json"));
        assertTrue(json.contains("\"sql\": \"UPDATE exit_table SET n = ?\""), json);
    }

    /** Legacy tear-down code that swallows a refusal in {@code @AfterAll}: the class fails too. */
    static class SwallowingTearDownSuite {
        @RegisterExtension
        static final FencingExtension FENCING = FencingExtension.forUrl(RAW).mode(FencingMode.ENFORCE)
                .reportTo(reportFile);

        @Test
        void passes() {
        }

        @org.junit.jupiter.api.AfterAll
        static void tearDownSwallows() {
            try {
                increment(FENCING.dataSource());
            } catch (SQLException e) {
                System.err.println("legacy tear-down logs and carries on: " + e.getMessage());
            }
        }
    }

    @Test
    void enforceModeFailsAClassWhoseTearDownSwallowedARefusal_C1(@TempDir Path dir) throws Exception {
        reportFile = dir.resolve("report.json");
        int before = n();
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter").selectors(
                selectClass(SwallowingTearDownSuite.class)).execute();
        results.testEvents().assertStatistics(stats -> stats.succeeded(1).failed(0));
        Events failed = results.containerEvents().failed();
        assertEquals(1, failed.count(), "the class fails");
        Throwable failure = failed.stream().findFirst().orElseThrow().getPayload(
                org.junit.platform.engine.TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow();
        assertTrue(failure.getMessage().contains("caused 1 refusal(s) outside its tests"), failure.getMessage());
        assertEquals(before, n(), "enforce mode refused the write");
        assertTrue(Files.readString(reportFile).contains("tearDownSwallows"), "the report names the tear-down");
    }

    @Test
    void aUrlThatIsNotJdbcIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FencingExtension.forUrl("h2:mem:x"));
        assertTrue(e.getMessage().contains("needs a JDBC URL"), e.getMessage());
    }
}
