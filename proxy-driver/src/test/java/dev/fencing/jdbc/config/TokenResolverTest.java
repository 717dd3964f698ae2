package dev.fencing.jdbc.config;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.TokenSource;
import dev.fencing.jdbc.testsupport.Answer;
import dev.fencing.jdbc.testsupport.StubConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC C1 and C6: which token and resource are in force, by precedence (scope, {@code SET LOCAL}, the connection's
 * own, the settings, the token file, the token source, the environment), over a stub connection.
 */
class TokenResolverTest {
    /** Set by the build for the test JVMs (proxy-driver/pom.xml). */
    private static final String ENV_WITH_TOKEN_8 = "FENCING_TEST_TOKEN";
    private static final String UNSET_ENV = "FENCING_TEST_NO_SUCH_VARIABLE";

    @TempDir
    Path dir;

    private final StubConnection raw = StubConnection.recording("PostgreSQL");

    private TokenResolver resolver(String... settings) throws SQLException {
        StringBuilder url = new StringBuilder("jdbc:fencing:h2:mem:x");
        for (String setting : settings) {
            url.append(';').append(setting);
        }
        java.util.Properties environment = new java.util.Properties();
        environment.setProperty("fencing.token.env", UNSET_ENV);
        environment.setProperty("fencing.resource.env", UNSET_ENV);
        return new TokenResolver(Settings.parse(url.toString(), environment), raw);
    }

    private static FencingRefusedException refused(TokenResolver resolver) {
        return assertThrows(FencingRefusedException.class, () -> resolver.token(resolver.resource()));
    }

    /** A token source for the tests: answers what {@link #next} holds, or throws it. */
    public static final class Source implements TokenSource {
        static volatile Object next;

        @Override
        public OptionalLong token(String resource) throws Exception {
            if (next instanceof Exception e) {
                throw e;
            }
            return (OptionalLong) next;
        }
    }

    @Test
    void eachSourceGivesWayToTheOneAboveIt_C6() throws Exception {
        Path file = Files.writeString(dir.resolve("token"), "4\n");
        TokenResolver resolver = resolver("fencing.token=3", "fencing.token.file=" + file,
                "fencing.resource=orders");
        assertEquals(3, resolver.token("orders"), "the setting is above the file");
        resolver.setConnectionToken(5);
        assertEquals(5, resolver.token("orders"), "the connection's token is above the settings");
        try (Fencing.Scope scope = Fencing.scope("scoped", 6)) {
            assertEquals("scoped", resolver.resource());
            assertEquals(6, resolver.token("scoped"), "the thread's scope is above everything");
        }
        assertEquals("orders", resolver.resource());
        resolver.clearConnectionToken();
        assertEquals(3, resolver.token("orders"));
        assertEquals(4, resolver("fencing.token.file=" + file).token("default"), "the file is above the environment");
        assertEquals(8, resolver("fencing.token.env=" + ENV_WITH_TOKEN_8).token("default"));
        assertEquals(0, resolver().find("default"));
    }

    @Test
    void noTokenIsRefusedAndAForgottenOneSaysWhy_C1() throws Exception {
        TokenResolver resolver = resolver();
        FencingRefusedException missing = refused(resolver);
        assertEquals(FencingSqlState.INVALID_TOKEN, missing.getSQLState());
        assertTrue(missing.getMessage().contains("no token for resource 'default'"), missing.getMessage());
        resolver.setConnectionToken("7", "setClientInfo");
        resolver.setConnectionResource(" billing ", "setClientInfo");
        assertEquals("billing", resolver.resource());
        resolver.handedBack();
        assertEquals("default", resolver.resource(), "the next borrower starts from the configured resource");
        FencingRefusedException forgotten = refused(resolver);
        assertEquals(FencingSqlState.INVALID_TOKEN, forgotten.getSQLState());
        assertTrue(forgotten.getMessage().contains("forgotten when the connection was handed back"),
                forgotten.getMessage());
        resolver.setConnectionToken(9);
        assertEquals(9, resolver.token("default"));
        resolver.handedBack();
        resolver.setConnectionToken("10", "setClientInfo");
        resolver.clearConnectionToken();
        assertTrue(refused(resolver).getMessage().contains("a mutation needs a fencing token"),
                "a token set again ends the 'forgotten' explanation");
    }

    @Test
    void invalidTokensAreRefusedAndChangeNothing_C1() throws Exception {
        TokenResolver resolver = resolver();
        resolver.setConnectionToken(5);
        for (String bad : List.of("0", "-3", "5x", "")) {
            FencingRefusedException e = assertThrows(FencingRefusedException.class,
                    () -> resolver.setConnectionToken(bad, "setClientInfo"));
            assertEquals(FencingSqlState.INVALID_TOKEN, e.getSQLState());
            assertThrows(FencingRefusedException.class, () -> resolver.setSessionToken(bad, "SET fencing.token"));
        }
        assertThrows(FencingRefusedException.class, () -> resolver.setConnectionToken(0));
        assertThrows(FencingRefusedException.class, () -> resolver.setConnectionToken(-1));
        assertEquals(5, resolver.token("default"), "the refused values left the token as it was");
        assertThrows(SQLException.class, () -> resolver.setConnectionResource("x".repeat(201), "setClientInfo"));
        assertEquals("default", resolver.resource());
        SQLException atConnect = assertThrows(SQLException.class, () -> resolver("fencing.token=1.5"));
        assertEquals(FencingSqlState.INVALID_TOKEN, atConnect.getSQLState(), "the settings refuse it, before any use");
    }

    @Test
    void aTokenFileIsReadAtEveryUseAndAMissingOrBadOneIsRefused_C6() throws Exception {
        Path file = dir.resolve("token");
        TokenResolver resolver = resolver("fencing.token.file=" + file);
        FencingRefusedException missing = refused(resolver);
        assertEquals(FencingSqlState.INVALID_TOKEN, missing.getSQLState());
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
        Files.writeString(file, " 11 \n");
        assertEquals(11, resolver.token("default"));
        Files.writeString(file, "12");
        assertEquals(12, resolver.token("default"), "read again, not remembered");
        Files.writeString(file, "twelve");
        assertTrue(refused(resolver).getMessage().contains("token file"));
    }

    @Test
    void aTokenSourceIsAskedAndItsFailuresAreRefusals_C6() throws Exception {
        TokenResolver resolver = resolver("fencing.token.source=" + Source.class.getName());
        Source.next = OptionalLong.of(21);
        assertEquals(21, resolver.token("default"));
        Source.next = OptionalLong.empty();
        assertEquals(0, resolver.find("default"));
        Source.next = OptionalLong.of(0);
        assertTrue(refused(resolver).getMessage().contains("invalid token '0'"), refused(resolver).getMessage());
        Source.next = new java.io.IOException("lease agent down");
        assertTrue(refused(resolver).getMessage().contains("lease agent down"));
        Source.next = null;
        assertEquals(0, resolver.find("default"), "null is no token, not a crash");
        SQLException notASource = assertThrows(SQLException.class,
                () -> resolver("fencing.token.source=java.lang.String"));
        assertEquals(FencingSqlState.CONFIGURATION, notASource.getSQLState());
        assertEquals(FencingSqlState.CONFIGURATION, assertThrows(SQLException.class,
                () -> resolver("fencing.token.source=no.such.Source")).getSQLState());
    }

    @Test
    void setLocalSendsTheParsedNumberAndHoldsForTheServersTransactionOnly_C6() throws Exception {
        String[] transaction = {"100"};
        raw.answering(sql -> sql.startsWith("SELECT current_setting") ? Answer.rows(new Object[] {"9", transaction[0]})
                : sql.startsWith("SELECT CAST(pg_catalog.pg_current_xact_id()") ? Answer.rows(new Object[] {"100"})
                : Answer.count(0));
        TokenResolver resolver = resolver();
        resolver.setConnectionToken(5);
        resolver.setLocalToken(" 0009 ", "SET LOCAL fencing.token");
        assertEquals("SET LOCAL fencing.token = '9'", raw.sent().get(0), "the number, never the caller's text");
        assertEquals(9, resolver.token("default"));
        transaction[0] = "101";
        assertEquals(5, resolver.token("default"), "another transaction: the connection's token again");
        transaction[0] = null;
        assertEquals(5, resolver.token("default"));
        resolver.setSessionToken("6", "SET fencing.token");
        assertTrue(raw.sent().contains("RESET fencing.token"), raw.sent()::toString);
        assertEquals(6, raw.sent().size(), "the set, its transaction, three reads of the setting and the reset: "
                + raw.sent());
    }

    @Test
    void setLocalOutsideATransactionIsRefusedWithTheServersState() throws Exception {
        raw.answering(sql -> Answer.count(0).withWarning(new SQLWarning("SET LOCAL can only be used in transaction"
                + " blocks", "25P01")));
        TokenResolver resolver = resolver();
        SQLException e = assertThrows(SQLException.class, () -> resolver.setLocalToken("9", "SET LOCAL fencing.token"));
        assertEquals("25P01", e.getSQLState());
        assertEquals(0, resolver.find("default"), "nothing believed in force");
        assertEquals(1, raw.sent().size());
    }
}
