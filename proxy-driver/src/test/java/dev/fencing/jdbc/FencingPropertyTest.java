package dev.fencing.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one table of settings, {@link FencingProperty}, is what the README, {@code getPropertyInfo}, the data
 * source's setters and the parser all say (issue 15 item 2, SPEC C6).
 */
class FencingPropertyTest {
    @Test
    void theReadmeSettingsTableIsTheEnum() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String expected = FencingProperty.markdownTable();
        assertTrue(readme.contains(expected), "README.md's settings table differs from FencingProperty; it should be:\n"
                + expected);
        List<String> rows = new ArrayList<>();
        for (String line : readme.split("\n")) {
            if (line.startsWith("| `fencing.")) {
                rows.add(line);
            }
        }
        assertEquals(FencingProperty.values().length, rows.size(), "one README row per setting, no other: " + rows);
    }

    @Test
    void getPropertyInfoReportsEverySettingInTableOrderWithDefaultsAndChoices() throws SQLException {
        Properties info = new Properties();
        info.setProperty("fencing.unwrap", "allow");
        DriverPropertyInfo[] properties = new FencingDriver().getPropertyInfo(
                "jdbc:fencing:postgresql://db/app?fencing.mode=audit&sslmode=require", info);
        assertEquals(FencingProperty.values().length, properties.length);
        for (int i = 0; i < properties.length; i++) {
            FencingProperty expected = FencingProperty.values()[i];
            DriverPropertyInfo property = properties[i];
            assertEquals(expected.getName(), property.name);
            assertTrue(property.description.endsWith(")") && !property.description.contains("`"), property.description);
            if (expected.getChoices().isEmpty()) {
                assertNull(property.choices, property.name);
            } else {
                assertArrayEquals(expected.getChoices().toArray(), property.choices, property.name);
            }
        }
        assertEquals("audit", properties[FencingProperty.MODE.ordinal()].value, "given in the URL");
        assertEquals("allow", properties[FencingProperty.UNWRAP.ordinal()].value, "given as a property");
        assertEquals("validate", properties[FencingProperty.SCHEMA.ordinal()].value, "the default");
        assertNull(properties[FencingProperty.TOKEN.ordinal()].value, "no default");
        assertTrue(properties[FencingProperty.LEASE_TABLE.ordinal()].description.contains("the token issuer's lease"),
                "links are reduced to their words: " + properties[FencingProperty.LEASE_TABLE.ordinal()].description);
    }

    @Test
    void everySettingHasADataSourceSetterAndGetter() throws Exception {
        for (FencingProperty property : FencingProperty.values()) {
            String bean = Character.toUpperCase(property.getBeanName().charAt(0)) + property.getBeanName().substring(1);
            FencingDataSource dataSource = new FencingDataSource();
            Method setter = FencingDataSource.class.getMethod("set" + bean, String.class);
            Method getter = FencingDataSource.class.getMethod("get" + bean);
            setter.invoke(dataSource, "x1");
            assertEquals("x1", dataSource.getProperty(property.getName()), property.getName());
            assertEquals("x1", getter.invoke(dataSource), property.getName());
        }
    }

    @Test
    void badValuesAreConfigurationErrorsNamingTheSetting_C6() {
        for (String[] bad : new String[][] {{"fencing.mode", "relaxed", "fencing.mode must be 'enforce' or 'audit'"},
            {"fencing.schema", "drop", "fencing.schema must be 'validate' or 'create'"},
            {"fencing.unwrap", "yes", "fencing.unwrap must be 'deny' or 'allow'"},
            {"fencing.issuer.check", "on", "fencing.issuer.check must be 'auto' or 'off'"},
            {"fencing.cache.size", "-1", "fencing.cache.size must be a positive integer"},
            {"fencing.table", "a.b.c", "fencing.table: "},
            {"fencing.resource", "it's", "fencing.resource: "},
            {"fencing.exempt", "a b", "fencing.exempt: 'a b' is not a table name"}}) {
            SQLException e = assertThrows(SQLException.class, () -> FencingProperty.forName(bad[0]).parse(bad[1]));
            assertEquals(FencingSqlState.CONFIGURATION, e.getSQLState(), bad[0]);
            assertTrue(e.getMessage().startsWith("fencing: " + bad[2]), e.getMessage());
        }
    }

    /** A blank name is no name (the default); a blank choice or number is a mistake. */
    @Test
    void aBlankNameIsTheDefault() throws SQLException {
        assertEquals("FENCING_TOKEN", FencingProperty.TOKEN_ENV.parse(" "));
        assertEquals(FencingMode.ENFORCE, FencingProperty.MODE.parse(null));
        assertThrows(SQLException.class, () -> FencingProperty.MODE.parse(""));
        assertEquals(4096, FencingProperty.CACHE_SIZE.parse(null));
        assertNull(FencingProperty.RESOURCE.parse(""));
    }

    /** HikariCP configured by class name and bean properties, as frameworks do (SPEC C6). */
    @Test
    void hikariSetsTheDataSourcesBeanProperties_C6() throws Exception {
        String raw = TestDatabase.H2.rawUrl();
        String table = TestDatabase.unique("bean");
        String resource = TestDatabase.unique("bean");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT)");
        HikariConfig config = new HikariConfig();
        config.setDataSourceClassName(FencingDataSource.class.getName());
        config.addDataSourceProperty("url", "jdbc:fencing:" + raw.substring(5));
        config.addDataSourceProperty("schema", "create");
        config.addDataSourceProperty("resource", resource);
        config.addDataSourceProperty("token", "3");
        config.addDataSourceProperty("cacheSize", "16");
        config.setMaximumPoolSize(1);
        try (HikariDataSource pool = new HikariDataSource(config);
             Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("INSERT INTO " + table + " VALUES (1)"));
        }
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT epoch FROM fencing_epoch WHERE resource = '" + resource + "'")) {
            assertTrue(rs.next());
            assertEquals(3, rs.getLong(1));
            s.execute("DROP TABLE " + table);
        }
    }
}
