package dev.fencing.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.jdbc.testsupport.RecordingDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every way a token and resource reach the driver (SPEC C6), on embedded H2. */
class TokenSourcesTest {
    private String raw;

    @BeforeEach
    void setUp() throws SQLException {
        raw = TestDatabase.H2.rawUrl();
        TestDatabase.exec(raw, "CREATE TABLE item (id INT PRIMARY KEY, v INT)", "INSERT INTO item VALUES (1, 0)");
        RecordingDriver.register();
    }

    @AfterEach
    void tearDown() throws SQLException {
        TestDatabase.exec(raw, "DROP ALL OBJECTS");
    }

    private String url(String... settings) {
        String[] all = new String[settings.length + 2];
        all[0] = "fencing.schema=create";
        all[1] = "fencing.resources=any"; // names of every source here; declared names: ResourceMapTest
        System.arraycopy(settings, 0, all, 2, settings.length);
        return TestDatabase.fenced(raw, all);
    }

    private long mark(String resource) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw);
             PreparedStatement ps = c.prepareStatement("SELECT epoch FROM fencing_epoch WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    private static int write(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate("UPDATE item SET v = v + 1 WHERE id = 1");
        }
    }

    private static void assertRefused(String state, Connection c) {
        SQLException e = assertThrows(SQLException.class, () -> write(c));
        assertEquals(state, e.getSQLState(), e.getMessage());
    }

    @Test
    void aThreadScopeReachesPooledConnectionsAndEndsWithTheScope_C6() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url());
        config.setMaximumPoolSize(2);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            try (Fencing.Scope scope = Fencing.scope("orders", 4)) {
                try (Connection c = pool.getConnection()) {
                    assertEquals(1, write(c));
                    assertEquals("orders", c.unwrap(FencedConnection.class).getFencingResource());
                }
                try (Fencing.Scope inner = Fencing.scope("orders", 5); Connection c = pool.getConnection()) {
                    assertEquals(1, write(c));
                }
                try (Connection c = pool.getConnection()) {
                    assertRefused(FencingSqlState.STALE_TOKEN, c);
                }
            }
            assertEquals(5, mark("orders"));
            try (Connection c = pool.getConnection()) {
                assertRefused(FencingSqlState.INVALID_TOKEN, c);
            }
        }
    }

    @Test
    void aScopeTakesPrecedenceOverTheConnectionsToken_C6() throws Exception {
        try (Connection c = DriverManager.getConnection(url("fencing.resource=r1", "fencing.token=2"))) {
            assertEquals(1, write(c));
            try (Fencing.Scope scope = Fencing.scope("r1", 3)) {
                assertEquals(1, write(c));
            }
            assertRefused(FencingSqlState.STALE_TOKEN, c);
            assertEquals(3, mark("r1"));
        }
    }

    @Test
    void clientInfoAndTheTypedConnectionApiSetTokenAndResource_C6() throws Exception {
        try (Connection c = DriverManager.getConnection(url())) {
            c.setClientInfo("fencing.resource", "ci");
            c.setClientInfo("fencing.token", "7");
            assertEquals("7", c.getClientInfo("fencing.token"));
            assertEquals("ci", c.getClientInfo("fencing.resource"));
            assertEquals(1, write(c));
            FencedConnection fenced = c.unwrap(FencedConnection.class);
            fenced.setFencingResource("typed");
            fenced.setFencingToken(9);
            assertEquals(OptionalLong.of(9), fenced.getFencingToken());
            assertEquals(1, write(c));
            assertEquals(9, fenced.readHighWaterMark("typed"));
            fenced.clearFencingToken();
            assertRefused(FencingSqlState.INVALID_TOKEN, c);
        }
        assertEquals(7, mark("ci"));
        assertEquals(9, mark("typed"));
    }

    @Test
    void setFencingAsSqlIsHandledByTheDriverAndNeverSent_C6() throws Exception {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            assertFalse(s.execute("SET fencing.resource = 'sql'"));
            assertEquals(0, s.executeUpdate("set FENCING.TOKEN to 11"));
            assertEquals(1, write(c));
            try (PreparedStatement ps = c.prepareStatement("SET fencing.token = 12")) {
                ps.execute();
            }
            assertEquals(1, write(c));
        }
        assertEquals(12, mark("sql"));
    }

    @Test
    void urlParametersAndPropertiesCarrySettingsAndNeverReachTheUnderlyingDriver_C6() throws Exception {
        String recording = "jdbc:fencing:recording:" + raw.substring("jdbc:h2:".length())
                + ";fencing.schema=create;fencing.resource=url;fencing.token=3";
        Properties info = new Properties();
        info.setProperty("fencing.token.env", "NO_SUCH_VARIABLE");
        info.setProperty("user", "");
        try (Connection c = DriverManager.getConnection(recording, info)) {
            assertEquals(1, write(c));
        }
        assertFalse(RecordingDriver.lastUrl.toLowerCase().contains("fencing."), RecordingDriver.lastUrl);
        assertFalse(RecordingDriver.lastProperties.toString().toLowerCase().contains("fencing."),
                RecordingDriver.lastProperties.toString());
        assertEquals("", RecordingDriver.lastProperties.getProperty("user"), "other properties pass through");
        assertEquals(3, mark("url"));
        Properties props = new Properties();
        props.setProperty("fencing.schema", "create");
        props.setProperty("fencing.resource", "props");
        props.setProperty("fencing.token", "4");
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw), props)) {
            assertEquals(1, write(c));
        }
        assertEquals(4, mark("props"));
    }

    @Test
    void aTokenFileIsReReadWhenALeaseAgentRewritesIt_C6(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("token");
        Files.writeString(file, "5\n");
        try (Connection c = DriverManager.getConnection(url("fencing.resource=file", "fencing.token.file=" + file))) {
            assertEquals(1, write(c));
            Files.writeString(file, "6\n");
            assertEquals(1, write(c));
            assertEquals(6, mark("file"));
            Files.writeString(file, "six");
            assertRefused(FencingSqlState.INVALID_TOKEN, c);
            Files.delete(file);
            assertRefused(FencingSqlState.INVALID_TOKEN, c);
        }
    }

    @Test
    void aTokenFileRewrittenWithTheSameSizeAndModificationTimeIsReadAgain_C6(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("token");
        Files.writeString(file, "5\n");
        FileTime written = Files.getLastModifiedTime(file);
        try (Connection c = DriverManager.getConnection(url("fencing.resource=samesize",
                "fencing.token.file=" + file))) {
            assertEquals(1, write(c));
            // What cp -p and rsync -t leave behind: other content, same size, same modification time.
            Files.writeString(file, "6\n");
            Files.setLastModifiedTime(file, written);
            assertEquals(written, Files.getLastModifiedTime(file));
            assertEquals(1, write(c));
            assertEquals(6, mark("samesize"), "the new token is in force from the next statement on");
        }
    }

    @Test
    void anEnvironmentVariableCarriesTheToken_C6() throws Exception {
        assertEquals("8", System.getenv("FENCING_TEST_TOKEN"), "set by the build for this test");
        try (Connection c = DriverManager.getConnection(url("fencing.resource=env",
                "fencing.token.env=FENCING_TEST_TOKEN"))) {
            assertEquals(1, write(c));
        }
        assertEquals(8, mark("env"));
    }

    @Test
    void aPluggableTokenSourceIsAskedAtEveryMutation_C6() throws Exception {
        try (Connection c = DriverManager.getConnection(url("fencing.resource=plug",
                "fencing.token.source=" + FixedTokenSource.class.getName()))) {
            FixedTokenSource.next = 12;
            assertEquals(1, write(c));
            FixedTokenSource.next = 0;
            assertRefused(FencingSqlState.INVALID_TOKEN, c);
        }
        assertEquals(12, mark("plug"));
        SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(
                url("fencing.token.source=java.lang.String")));
        assertEquals(FencingSqlState.CONFIGURATION, e.getSQLState());
    }

    @Test
    void theDataSourceConnectsThroughTheDriver_C6() throws Exception {
        FencingDataSource ds = new FencingDataSource();
        ds.setUrl(url());
        ds.setResource("ds");
        ds.setToken("2");
        try (Connection c = ds.getConnection()) {
            assertEquals(1, write(c));
        }
        assertEquals(2, mark("ds"));
    }

    @Test
    void badSettingsAndAMissingEpochTableAreClearErrorsAtConnect() throws Exception {
        SQLException typo = assertThrows(SQLException.class,
                () -> DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.tokn=1")));
        assertEquals(FencingSqlState.CONFIGURATION, typo.getSQLState());
        assertTrue(typo.getMessage().contains("fencing.tokn"), typo.getMessage());
        SQLException missing = assertThrows(SQLException.class,
                () -> DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=no_such_epochs")));
        assertEquals(FencingSqlState.CONFIGURATION, missing.getSQLState());
        assertTrue(missing.getMessage().contains("CREATE TABLE"), missing.getMessage());
        Properties injection = new Properties();
        injection.setProperty("fencing.table", "x; DROP TABLE item");
        SQLException injected = assertThrows(SQLException.class,
                () -> DriverManager.getConnection(TestDatabase.fenced(raw), injection));
        assertEquals(FencingSqlState.CONFIGURATION, injected.getSQLState());
    }

    /** A token source for the test above. */
    public static final class FixedTokenSource implements TokenSource {
        static volatile long next;

        @Override
        public OptionalLong token(String resource) {
            return next == 0 ? OptionalLong.empty() : OptionalLong.of(next);
        }
    }
}
