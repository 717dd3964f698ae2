package dev.fencing.jdbc.config;

import dev.fencing.jdbc.FencingMode;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencingSqlState;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SPEC C6: the {@code fencing.*} settings are split off the URL and properties; the rest reaches the driver as given. */
class SettingsTest {
    private static Properties properties(String... pairs) {
        Properties properties = new Properties();
        for (int i = 0; i < pairs.length; i += 2) {
            properties.setProperty(pairs[i], pairs[i + 1]);
        }
        return properties;
    }

    private static String configurationError(String url, Properties info) {
        SQLException e = assertThrows(SQLException.class, () -> Settings.parse(url, info));
        assertEquals(FencingSqlState.CONFIGURATION, e.getSQLState(), e::toString);
        return e.getMessage();
    }

    @Test
    void semicolonSettingsAreCutOutOfTheUrlAndTheRestKeptInOrder_C6() throws SQLException {
        Settings settings = Settings.parse("jdbc:fencing:h2:mem:x;MODE=PostgreSQL;fencing.resource=orders;"
                + "LOCK_TIMEOUT=5;Fencing.Token=7", null);
        assertEquals("jdbc:h2:mem:x;MODE=PostgreSQL;LOCK_TIMEOUT=5", settings.targetUrl());
        assertEquals("orders", settings.resource());
        assertEquals("7", settings.text(FencingProperty.TOKEN), "setting names are case-insensitive");
    }

    @Test
    void querySettingsAreDecodedAndTheOtherParametersKeptAsWritten_C6() throws SQLException {
        Settings settings = Settings.parse("jdbc:fencing:postgresql://db/app?user=a%20b&fencing.resource=billing%2Deu"
                + "&ssl=true&fencing%2Etoken=9", null);
        assertEquals("jdbc:postgresql://db/app?user=a%20b&ssl=true", settings.targetUrl());
        assertEquals("billing-eu", settings.resource());
        assertEquals("9", settings.text(FencingProperty.TOKEN));
        assertEquals("jdbc:postgresql://db/app", Settings.parse("jdbc:fencing:postgresql://db/app?fencing.token=1",
                null).targetUrl(), "no '?' is left behind when every parameter was ours");
    }

    @Test
    void propertiesAreSplitAndUrlParametersWin_C6() throws SQLException {
        Properties info = properties("user", "app", "fencing.resource", "from-properties", "FENCING.TOKEN", "3");
        Settings settings = Settings.parse("jdbc:fencing:h2:mem:x;fencing.resource=from-url", info);
        assertEquals("from-url", settings.resource());
        assertEquals("3", settings.text(FencingProperty.TOKEN));
        assertEquals(properties("user", "app"), settings.targetProperties(), "the underlying driver sees no fencing.*");
        assertEquals("from-properties", info.getProperty("fencing.resource"), "the caller's properties stay as given");
    }

    @Test
    void defaultsComeFromTheTableOfSettings() throws SQLException {
        Settings settings = Settings.parse("jdbc:fencing:h2:mem:x", new Properties());
        assertNull(settings.resource());
        assertEquals("FENCING_TOKEN", settings.tokenEnvName());
        assertEquals("FENCING_RESOURCE", settings.resourceEnvName());
        assertEquals("fencing_epoch", settings.epochTable().simpleName());
        assertEquals(Settings.SchemaMode.VALIDATE, settings.schemaMode());
        assertEquals(FencingMode.ENFORCE, settings.mode());
        assertEquals(4096, settings.cacheSize());
        assertFalse(settings.unwrapAllowed());
        assertFalse(settings.sessionGuard());
        assertTrue(settings.issuerCheck());
        assertFalse(settings.leaseTableConfigured());
        assertEquals(List.of(), settings.exemptTables());
        assertNull(settings.auditFile());
    }

    @Test
    void parsedValuesReachTheirAccessors() throws SQLException {
        Settings settings = Settings.parse("jdbc:fencing:h2:mem:x;fencing.schema=create;fencing.mode=audit;"
                + "fencing.unwrap=allow;fencing.guard=session;fencing.cache.size=10;fencing.issuer.check=off;"
                + "fencing.lease.table=admin.leases;fencing.exempt=audit_log,ops.notes", null);
        assertEquals(Settings.SchemaMode.CREATE, settings.schemaMode());
        assertEquals(FencingMode.AUDIT, settings.mode());
        assertTrue(settings.unwrapAllowed());
        assertTrue(settings.sessionGuard());
        assertEquals(10, settings.cacheSize());
        assertFalse(settings.issuerCheck());
        assertTrue(settings.leaseTableConfigured());
        assertEquals("leases", settings.leaseTable().simpleName());
        assertEquals(List.of("audit_log", "notes"), settings.exemptTables().stream().map(t -> t.simpleName()).toList());
    }

    /**
     * Each setting is held under its own type, given once in {@code Settings}: for every setting of the table, given
     * and defaulted, the value it holds is what the setting's parser makes of the text (so no setting reads another's
     * field, and none is missing: {@code text} names every setting in a switch that must cover them all).
     */
    @Test
    void everySettingHoldsWhatItsParserMakesGivenOrDefaulted() throws SQLException {
        Map<FencingProperty, String> given = new java.util.EnumMap<>(FencingProperty.class);
        given.put(FencingProperty.RESOURCE, "orders");
        given.put(FencingProperty.TOKEN, "7");
        given.put(FencingProperty.TOKEN_FILE, "/run/token");
        given.put(FencingProperty.TOKEN_ENV, "MY_TOKEN");
        given.put(FencingProperty.RESOURCE_ENV, "MY_RESOURCE");
        given.put(FencingProperty.TOKEN_SOURCE, "com.example.Tokens");
        given.put(FencingProperty.TABLE, "ops.epochs");
        given.put(FencingProperty.SCHEMA, "create");
        given.put(FencingProperty.GUARD, "session");
        given.put(FencingProperty.UNWRAP, "allow");
        given.put(FencingProperty.CACHE_SIZE, "12");
        given.put(FencingProperty.LEASE_TABLE, "ops.leases");
        given.put(FencingProperty.ISSUER_CHECK, "off");
        given.put(FencingProperty.RESOURCES, "any");
        given.put(FencingProperty.MODE, "audit");
        given.put(FencingProperty.AUDIT_FILE, "/tmp/audit.json");
        given.put(FencingProperty.EXEMPT, "audit_log,ops.notes");
        assertEquals(FencingProperty.values().length, given.size(), "a value for every setting");
        Properties all = new Properties();
        given.forEach((property, text) -> all.setProperty(property.getName(), text));
        Settings settings = Settings.parse("jdbc:fencing:h2:mem:x", all);
        Settings defaults = Settings.parse("jdbc:fencing:h2:mem:x", new Properties());
        for (FencingProperty property : FencingProperty.values()) {
            Object parsed = property.parse(given.get(property));
            assertEquals(String.valueOf(parsed), settings.text(property), property.getName());
            Object byDefault = property.parse(null);
            assertEquals(byDefault == null ? null : byDefault.toString(), defaults.text(property), property.getName());
        }
        assertEquals("orders", settings.resource());
        assertEquals("epochs", settings.epochTable().simpleName());
        assertEquals(java.nio.file.Path.of("/tmp/audit.json"), settings.auditFile());
        assertFalse(settings.declaredResourcesOnly());
        assertTrue(defaults.declaredResourcesOnly());
    }

    @Test
    void aSettingGivenTwiceInTheUrlIsRefusedInEitherForm_C6() {
        assertTrue(configurationError("jdbc:fencing:h2:mem:x;fencing.token=1;FENCING.TOKEN=2", null)
                .contains("given more than once in the URL: fencing.token"));
        assertTrue(configurationError("jdbc:fencing:postgresql://db/app?fencing.resource=a&fencing.token=1"
                + "&fencing.resource=b", null).contains("given more than once in the URL: fencing.resource"));
        assertTrue(configurationError("jdbc:fencing:h2:mem:x;fencing.token=1?fencing.token=2", null)
                .contains("fencing.token"), "once as ';' and once as '?' is twice too");
    }

    @Test
    void anUnknownSettingNamesTheNearestKnownOne_C6() {
        String message = configurationError("jdbc:fencing:h2:mem:x;fencing.resorce=a", null);
        assertTrue(message.contains("unknown setting 'fencing.resorce'; did you mean 'fencing.resource'?"), message);
        assertTrue(message.contains("fencing.token.file"), "the known settings are listed: " + message);
        String far = configurationError("jdbc:fencing:h2:mem:x", properties("fencing.zzzzzzzzzzzz", "1"));
        assertFalse(far.contains("did you mean"), far);
    }

    @Test
    void editDistanceCountsSingleCharacterEdits() {
        assertEquals(0, Settings.editDistance("fencing.token", "fencing.token"));
        assertEquals(1, Settings.editDistance("fencing.tokn", "fencing.token"));
        assertEquals(1, Settings.editDistance("fencing.tokem", "fencing.token"));
        assertEquals(2, Settings.editDistance("fencing.tokenxx", "fencing.token"));
        assertEquals(3, Settings.editDistance("", "abc"));
        assertEquals(3, Settings.editDistance("kitten", "sitting"));
    }

    @Test
    void aFencingPropertyThatIsNoStringIsRefusedNotIgnored_C6() {
        Properties info = new Properties();
        info.put("fencing.token", 5L);
        assertTrue(configurationError("jdbc:fencing:h2:mem:x", info).contains("fencing.token must be given as a"
                + " String, not a Long"));
        Properties other = new Properties();
        other.put("loginTimeout", 5);
        other.setProperty("fencing.token", "5");
        assertEquals("5", assertDoesNotThrow(() -> Settings.parse("jdbc:fencing:h2:mem:x", other))
                .text(FencingProperty.TOKEN), "a non-String property of the underlying driver's is not ours to refuse");
    }

    @Test
    void theEpochTableCannotBeExempt_C5() {
        assertTrue(configurationError("jdbc:fencing:h2:mem:x;fencing.exempt=audit,FENCING_EPOCH", null)
                .contains("the epoch table 'fencing_epoch' cannot be exempt"));
        assertTrue(configurationError("jdbc:fencing:h2:mem:x;fencing.table=ops.marks;fencing.exempt=marks", null)
                .contains("'marks'"));
    }

    @Test
    void acceptsOnlyOurPrefixInAnyCase() {
        assertTrue(Settings.accepts("jdbc:fencing:h2:mem:x"));
        assertTrue(Settings.accepts("JDBC:Fencing:postgresql://db/app"));
        assertFalse(Settings.accepts("jdbc:postgresql://db/app"));
        assertFalse(Settings.accepts("jdbc:fencin"));
        assertFalse(Settings.accepts(null));
        assertTrue(Settings.isFencing("FENCING.x"));
        assertFalse(Settings.isFencing("fencingx"));
        assertFalse(Settings.isFencing(null));
    }

    @Test
    void givenReportsWhatWasSetUncheckedWithTheUrlWinning() {
        Map<String, String> given = Settings.given("jdbc:fencing:h2:mem:x;fencing.token=2;fencing.bogus=1",
                properties("fencing.token", "1", "Fencing.Resource", "r", "user", "u"));
        assertEquals(Map.of("fencing.token", "2", "fencing.resource", "r", "fencing.bogus", "1"), given);
        assertEquals(Map.of("fencing.token", "1"), Settings.given("jdbc:postgresql://db/app;fencing.token=2",
                properties("fencing.token", "1")), "a URL that is not ours is not read");
    }

    @Test
    void resourceNamesAreTrimmedBlankIsNoneAndABadOneIsRefusedNamingItsSource_C6() throws SQLException {
        assertEquals("orders", Settings.resourceName("  orders\t", "test"));
        assertNull(Settings.resourceName("   ", "test"));
        assertNull(Settings.resourceName(null, "test"));
        SQLException e = assertThrows(SQLException.class, () -> Settings.resourceName("x".repeat(201), "the source"));
        assertEquals(FencingSqlState.CONFIGURATION, e.getSQLState());
        assertTrue(e.getMessage().startsWith("fencing: the source: "), e.getMessage());
    }
}
