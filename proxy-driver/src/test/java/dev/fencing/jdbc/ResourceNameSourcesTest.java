package dev.fencing.jdbc;

import dev.fencing.jdbc.junit.FencingExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Resource names that could rewrite a guard written as SQL text are refused where they enter, from every source
 * (SPEC C8): settings, data source, client info, typed setter, {@code SET fencing.resource}, scopes and the
 * environment. The attacker's session reads backslashes as escapes where the database allows it; the database
 * judges that nothing changed.
 */
abstract class ResourceNameSourcesTest {
    /** Names that end or escape a literal quoted for standard strings, and others outside the rule. */
    static final List<String> CRAFTED = List.of("x\\' OR true --", "v' OR 'a'='a", "a\\", "caf\u00e9", "two words",
            "\u02bc OR true --", "x".repeat(201));

    String raw;
    String table;
    String resource;
    private Connection judge;

    abstract TestDatabase database();

    /** Session settings under which a backslash escapes a quote in a string literal. */
    abstract List<String> backslashEscapes();

    @BeforeEach
    void setUp() throws SQLException {
        raw = database().rawUrl();
        table = TestDatabase.unique("crafted");
        resource = TestDatabase.unique("victim");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, v INT)",
                "INSERT INTO " + table + " VALUES (1, 0)");
        try (Connection c = DriverManager.getConnection(url("fencing.schema=create", setting("fencing.resource",
                resource), "fencing.token=5")); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET v = 1");
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

    String url(String... settings) {
        String[] all = java.util.Arrays.copyOf(settings, settings.length + 1);
        all[settings.length] = "fencing.resources=any"; // every allowed character in a name; declared: ResourceMapTest
        return TestDatabase.fenced(raw, all);
    }

    /** A setting for {@link #url}: URL-encoded where the URL is query style. */
    String setting(String name, String value) {
        boolean query = raw.startsWith("jdbc:postgresql:");
        return name + "=" + (query ? URLEncoder.encode(value, StandardCharsets.UTF_8) : value);
    }

    /** The data table and the whole epoch table, as the database holds them. */
    String snapshot() throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Statement s = judge.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT id, v FROM " + table + " ORDER BY id")) {
                while (rs.next()) {
                    out.append(rs.getInt(1)).append('=').append(rs.getInt(2)).append(' ');
                }
            }
        }
        // the shared epoch table's rows this test could touch: its own resource's and any a crafted name would make
        // (other classes of the same build add rows of their own to it meanwhile: found by CI, two JVMs)
        List<String> names = new java.util.ArrayList<>(CRAFTED);
        names.add(resource);
        try (java.sql.PreparedStatement ps = judge.prepareStatement("SELECT resource, epoch FROM fencing_epoch"
                + " WHERE resource IN (" + String.join(", ", java.util.Collections.nCopies(names.size(), "?"))
                + ") ORDER BY resource")) {
            for (int i = 0; i < names.size(); i++) {
                ps.setString(i + 1, names.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.append(rs.getString(1)).append('@').append(rs.getLong(2)).append(' ');
                }
            }
        }
        return out.toString();
    }

    /** A connection of the attacker: a stale token (1, the mark is 5) for the victim, backslash escapes on. */
    Connection attacker() throws SQLException {
        Connection c = DriverManager.getConnection(url(setting("fencing.resource", resource), "fencing.token=1"));
        try (Statement s = c.createStatement()) {
            for (String sql : backslashEscapes()) {
                s.execute(sql);
            }
        }
        return c;
    }

    /** After the refusal, the attacker's write is still refused as stale: the crafted name never took effect. */
    void assertWriteStillStale(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class,
                    () -> s.executeUpdate("UPDATE " + table + " SET v = 99 WHERE id = 1"));
            assertEquals(FencingSqlState.STALE_TOKEN, e.getSQLState(), e.getMessage());
        }
        assertEquals(resource, c.unwrap(FencedConnection.class).getFencingResource());
    }

    static void assertConfiguration(String name, ThrowingRunnable attempt) {
        SQLException e = assertThrows(SQLException.class, attempt::run, name);
        assertEquals(FencingSqlState.CONFIGURATION, e.getSQLState(), name + ": " + e.getMessage());
        assertTrue(e.getMessage().contains("resource name"), e.getMessage());
    }

    /**
     * A {@code SET fencing.resource} of a crafted name is refused: as a bad name ({@code ZF006}), or, where a
     * backslash makes the text's own strings depend on the session's quoting, as a text that cannot be read
     * ({@code ZF004}) before any name is taken from it.
     */
    static void assertRefusedSet(String name, ThrowingRunnable attempt) {
        SQLException e = assertThrows(SQLException.class, attempt::run, name);
        boolean unreadable = name.contains("\\") && FencingSqlState.CANNOT_GUARD.equals(e.getSQLState());
        assertTrue(unreadable || FencingSqlState.CONFIGURATION.equals(e.getSQLState()) && e.getMessage().contains(
                "resource name"), name + ": " + e.getSQLState() + " " + e.getMessage());
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void craftedNamesInSettingsPropertiesAndDataSourceRefuseTheConnection_C8() throws Exception {
        String before = snapshot();
        for (String crafted : CRAFTED) {
            assertConfiguration(crafted, () -> DriverManager.getConnection(url(setting("fencing.resource", crafted),
                    "fencing.token=1")).close());
            Properties info = new Properties();
            info.setProperty("fencing.resource", crafted);
            info.setProperty("fencing.token", "1");
            assertConfiguration(crafted, () -> DriverManager.getConnection(url(), info).close());
            FencingDataSource dataSource = new FencingDataSource();
            dataSource.setUrl(url());
            dataSource.setResource(crafted);
            dataSource.setToken("1");
            assertConfiguration(crafted, () -> dataSource.getConnection().close());
        }
        assertEquals(before, snapshot());
    }

    @Test
    void craftedNamesSetOnAConnectionAreRefusedAndChangeNothing_C8() throws Exception {
        String before = snapshot();
        try (Connection c = attacker(); Statement s = c.createStatement()) {
            FencedConnection fenced = c.unwrap(FencedConnection.class);
            for (String crafted : CRAFTED) {
                assertConfiguration(crafted, () -> c.setClientInfo("fencing.resource", crafted));
                Properties info = new Properties();
                info.setProperty("fencing.resource", crafted);
                assertConfiguration(crafted, () -> c.setClientInfo(info));
                assertConfiguration(crafted, () -> fenced.setFencingResource(crafted));
                String quoted = "'" + crafted.replace("'", "''") + "'";
                assertRefusedSet(crafted, () -> s.execute("SET fencing.resource = " + quoted));
                assertRefusedSet(crafted, () -> s.execute("SET SESSION fencing.resource TO " + quoted));
                assertRefusedSet(crafted, () -> {
                    try (PreparedStatement ps = c.prepareStatement("SET fencing.resource = " + quoted)) {
                        ps.execute();
                    }
                });
                assertWriteStillStale(c);
            }
        }
        assertEquals(before, snapshot());
    }

    @Test
    void craftedNamesInScopesAreRefused_C8() throws Exception {
        String before = snapshot();
        try (Connection c = attacker()) {
            for (String crafted : CRAFTED) {
                assertThrows(IllegalArgumentException.class, () -> Fencing.scope(crafted, 5).close(), crafted);
                assertThrows(IllegalArgumentException.class, () -> FencingExtension.forUrl(raw).scope(crafted, 5),
                        crafted);
                assertEquals(null, Fencing.current());
                assertWriteStillStale(c);
            }
            assertThrows(IllegalArgumentException.class, () -> Fencing.scope(null, 5));
        }
        assertEquals(before, snapshot());
    }

    @Test
    void craftedNamesFromTheEnvironmentRefuseTheConnection_C8() throws Exception {
        String before = snapshot();
        // The child creates the epoch table if its database lacks one (an H2 in-memory database is its own).
        for (String crafted : List.of("x\\' OR true --", "v' OR 'a'='a")) {
            String refused = childWrite(crafted, "FENCING_RESOURCE", url("fencing.schema=create"));
            assertTrue(refused.endsWith(FencingSqlState.CONFIGURATION) && refused.contains("resource name"), refused);
            refused = childWrite(crafted, "APP_RESOURCE", url("fencing.schema=create",
                    "fencing.resource.env=APP_RESOURCE"));
            assertTrue(refused.endsWith(FencingSqlState.CONFIGURATION) && refused.contains("APP_RESOURCE"), refused);
        }
        assertEquals(before, snapshot());
        if (database() == TestDatabase.POSTGRESQL) {
            assertEquals("ok", childWrite(resource, "FENCING_RESOURCE", url()), "a valid name from the environment");
        }
    }

    /** Runs {@link WriteWithEnvironment} with {@code variable} set to {@code value} and token 5; its output. */
    private String childWrite(String value, String variable, String fencedUrl) throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classPath,
                WriteWithEnvironment.class.getName(), fencedUrl, "UPDATE " + table + " SET v = 1 WHERE id = 1"));
        // its outcome on standard output; the driver's log lines (standard error) are not part of it
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put(variable, value);
        builder.environment().put("FENCING_TOKEN", "5");
        Process child = builder.start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child ended");
        return out;
    }

    @Test
    void validNamesWithEveryAllowedCharacterAreWrittenExactly_C8() throws Exception {
        String odd = TestDatabase.unique("eu-west/orders@v2:a+b=c.d");
        try (Connection c = attacker(); Statement s = c.createStatement()) {
            s.execute("SET fencing.resource = '" + odd + "'");
            assertEquals(1, s.executeUpdate("UPDATE " + table + " SET v = 7 WHERE id = 1"));
        }
        try (PreparedStatement ps = judge.prepareStatement("SELECT epoch FROM fencing_epoch WHERE resource = ?")) {
            ps.setString(1, odd);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "the guard recorded the resource under its exact name");
                assertEquals(1, rs.getLong(1));
            }
        }
        assertTrue(snapshot().startsWith("1=7 "), snapshot());
    }
}
