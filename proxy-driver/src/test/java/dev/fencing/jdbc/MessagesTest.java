package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the driver says when it is set up wrong: plain words, the known choices, and what to do. */
class MessagesTest {
    private static final List<String> ALL_SETTINGS = List.of("fencing.audit.file", "fencing.cache.size",
            "fencing.exempt", "fencing.guard", "fencing.issuer.check", "fencing.lease.table", "fencing.mode", "fencing.resource",
            "fencing.resource.env", "fencing.resources", "fencing.schema", "fencing.table", "fencing.token", "fencing.token.env",
            "fencing.token.file", "fencing.token.source", "fencing.unwrap");

    @Test
    void anUnknownSettingListsTheKnownOnesSortedAndSuggestsANearMiss() {
        SQLException e = assertThrows(SQLException.class,
                () -> DriverManager.getConnection("jdbc:fencing:h2:mem:msg1;fencing.tokn=3"));
        assertEquals(FencingSqlState.CONFIGURATION, e.getSQLState());
        assertTrue(e.getMessage().contains("unknown setting 'fencing.tokn'; did you mean 'fencing.token'?"),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("Known settings: " + String.join(", ", ALL_SETTINGS)), e.getMessage());
    }

    @Test
    void aSettingGivenTwiceOrAsANonStringIsAConfigurationError() {
        SQLException twice = assertThrows(SQLException.class, () -> DriverManager.getConnection(
                "jdbc:fencing:h2:mem:msgTwice;fencing.mode=enforce;fencing.mode=audit"));
        assertEquals(FencingSqlState.CONFIGURATION, twice.getSQLState());
        assertTrue(twice.getMessage().contains("more than once in the URL: fencing.mode"), twice.getMessage());
        Properties info = new Properties();
        info.put("fencing.token", 26);
        SQLException typed = assertThrows(SQLException.class,
                () -> DriverManager.getConnection("jdbc:fencing:h2:mem:msgTyped", info));
        assertEquals(FencingSqlState.CONFIGURATION, typed.getSQLState());
        assertTrue(typed.getMessage().contains("fencing.token must be given as a String, not a Integer"),
                typed.getMessage());
    }

    @Test
    void anUnknownSettingFarFromAnyHasNoSuggestion() {
        SQLException e = assertThrows(SQLException.class,
                () -> DriverManager.getConnection("jdbc:fencing:h2:mem:msg2;fencing.colour=blue"));
        assertFalse(e.getMessage().contains("did you mean"), e.getMessage());
        assertTrue(e.getMessage().contains("Known settings: fencing.audit.file, "), e.getMessage());
    }

    @Test
    void aUrlWithoutItsDriverNamesTheDriverForItsScheme() {
        // MariaDB Connector/J and MySQL Connector/J are on the tests' class path (the MariaDB suites), so their
        // schemes are not tried here; UnfencedTest checks their names directly.
        assertDriverNamed("jdbc:fencing:oracle:thin:@db:1521/app", "the JDBC driver for 'jdbc:oracle:' URLs");
    }

    private static void assertDriverNamed(String url, String driver) {
        SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(url));
        assertEquals("08001", e.getSQLState());
        assertTrue(e.getMessage().contains(driver), e.getMessage());
        assertFalse(e.getMessage().contains("org.postgresql:postgresql"), e.getMessage());
    }

    @Test
    void aMissingTokenFileIsSaidInPlainWords(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("token");
        try (Connection c = DriverManager.getConnection("jdbc:fencing:h2:mem:msg3;fencing.schema=create;"
                + "fencing.token.file=" + file); Statement s = c.createStatement()) {
            c.unwrap(FencedConnection.class);
            try (Connection raw = DriverManager.getConnection("jdbc:h2:mem:msg3"); Statement r = raw.createStatement()) {
                r.execute("CREATE TABLE t (n INT)");
                FencingRefusedException e = assertThrows(FencingRefusedException.class,
                        () -> s.executeUpdate("INSERT INTO t VALUES (1)"));
                assertEquals(FencingSqlState.INVALID_TOKEN, e.getSQLState());
                assertTrue(e.getMessage().contains("the token file " + file.toAbsolutePath() + " (fencing.token.file)"
                        + " does not exist"), e.getMessage());
                assertFalse(e.getMessage().contains("(none)"), e.getMessage());
            }
        }
    }

    @Test
    void aMissingEpochTableOnH2SaysItDoesNotExist() {
        assertMissingTable("jdbc:fencing:h2:mem:msg4");
    }

    @Test
    @RequiresPostgres
    void aMissingEpochTableOnPostgresSaysItDoesNotExistWithoutTheServersPosition() {
        String table = TestDatabase.unique("no_such_epoch");
        assertMissingTable(TestDatabase.fenced(TestDatabase.pgUrl(), "fencing.table=" + table));
    }

    private static void assertMissingTable(String url) {
        SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(url));
        assertEquals(FencingSqlState.CONFIGURATION, e.getSQLState());
        assertTrue(e.getMessage().contains("does not exist. Run 'fencing init' once (docs/issuer.md), or connect once"
                + " with fencing.schema=create, or have your DBA run: CREATE TABLE"), e.getMessage());
        assertFalse(e.getMessage().contains("Position"), e.getMessage());
    }

    @Test
    void getPropertyInfoListsEverySettingWithItsDefault() throws SQLException {
        Driver driver = DriverManager.getDriver("jdbc:fencing:h2:mem:msg5");
        Properties info = new Properties();
        info.setProperty("fencing.mode", "audit");
        List<String> names = new ArrayList<>();
        for (DriverPropertyInfo property : driver.getPropertyInfo("jdbc:fencing:h2:mem:msg5", info)) {
            names.add(property.name);
            assertTrue(property.description.contains("(default: "), property.name + ": " + property.description);
            if (property.name.equals("fencing.mode")) {
                assertEquals("audit", property.value);
                assertTrue(property.description.endsWith("(default: enforce)"), property.description);
            }
        }
        names.sort(null);
        assertEquals(ALL_SETTINGS, names);
    }

    /** A missing token says where it was looked for, which environment variable, and that 'default' is a placeholder. */
    @Test
    void aMissingTokenNamesTheEnvironmentVariableAndThePlaceholderResource() throws Exception {
        try (java.sql.Connection c = DriverManager.getConnection(
                "jdbc:fencing:h2:mem:msgEnv;fencing.schema=create;fencing.token.env=NO_SUCH_VAR_27")) {
            SQLException e = assertThrows(SQLException.class, () -> c.createStatement().execute("CREATE TABLE t (id INT)"));
            assertEquals(FencingSqlState.INVALID_TOKEN, e.getSQLState());
            assertTrue(e.getMessage().contains("environment variable NO_SUCH_VAR_27 (fencing.token.env)")
                    && e.getMessage().contains("'default' is the placeholder resource: name yours with fencing.resource"),
                    e.getMessage());
        }
    }
}
