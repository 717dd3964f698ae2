package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.guard.GuardFailure;
import dev.fencing.jdbc.RequiresPostgres;
import dev.fencing.jdbc.TestDatabase;
import dev.fencing.sql.EpochSql;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a failed prefix guard is told from the caller's own error: by the guard function's SQLState together with the
 * send's nonce in HINT, never by the message.
 */
class GuardFailureTest {
    /** An error as pgjdbc raises it: the server's fields typed, DETAIL and HINT among them. */
    public static final class ServerError extends SQLException {
        private final Fields fields;

        ServerError(String state, String detail, String hint) {
            super("ERROR: the guard's message, which is never read", state);
            this.fields = new Fields(detail, hint);
        }

        public Fields getServerErrorMessage() {
            return fields;
        }
    }

    /** The typed fields of {@link ServerError}. */
    public static final class Fields {
        private final String detail;
        private final String hint;

        Fields(String detail, String hint) {
            this.detail = detail;
            this.hint = hint;
        }

        public String getDetail() {
            return detail;
        }

        public String getHint() {
            return hint;
        }
    }

    /** The error the guard function raises with {@code state} and {@code detail} for the send of {@code nonce}. */
    static SQLException guardError(String state, String detail, long nonce) {
        return new ServerError(state, detail, Long.toString(nonce));
    }

    @Test
    void theStaleStateIsAStaleVerdictWithTheMarkFromTheTypedDetail_C2() {
        GuardFailure failure = GuardFailure.of(guardError(EpochSql.GUARD_STALE_STATE, "12", 77), 77);
        assertTrue(failure.stale());
        assertEquals(12, failure.mark());
    }

    @Test
    void theBehindStateIsABehindVerdict_C2() {
        assertFalse(GuardFailure.of(guardError(EpochSql.GUARD_BEHIND_STATE, null, 77), 77).stale());
    }

    @Test
    void aStaleVerdictWithoutANumberInItsDetailHasAnUnknownMarkButIsStillStale_C2() {
        GuardFailure failure = GuardFailure.of(guardError(EpochSql.GUARD_STALE_STATE, null, 77), 77);
        assertTrue(failure.stale());
        assertEquals(GuardFailure.UNKNOWN_MARK, failure.mark());
        assertEquals(GuardFailure.UNKNOWN_MARK, GuardFailure.of(guardError(EpochSql.GUARD_STALE_STATE, "x", 77), 77)
                .mark());
    }

    @Test
    void theGuardsStatesWithoutThisSendsNonceAreTheCallers_C10_C8() {
        assertNull(GuardFailure.of(guardError(EpochSql.GUARD_STALE_STATE, "12", 76), 77), "another send's nonce");
        assertNull(GuardFailure.of(new ServerError(EpochSql.GUARD_BEHIND_STATE, null, null), 77), "no HINT");
        assertNull(GuardFailure.of(new ServerError(EpochSql.GUARD_BEHIND_STATE, null, "77 "), 77), "not exactly");
        assertNull(GuardFailure.of(new SQLException("no fields", EpochSql.GUARD_STALE_STATE), 77), "no fields");
    }

    @Test
    void anyOtherErrorIsTheCallersWhateverItsMessageSays_C8() {
        assertNull(GuardFailure.of(new SQLException("fencing_guard_failed stale 7", "22P02"), 7));
        assertNull(GuardFailure.of(new SQLException("fencing: stale token", "ZF002"), 7));
        assertNull(GuardFailure.of(new SQLException("no state"), 7));
        assertNull(GuardFailure.of(new ServerError("22P02", "7", "7"), 7), "the nonce alone is no verdict");
    }

    @Test
    @RequiresPostgres
    void theGuardFunctionRaisesItsVerdictsWithItsStatesAndTheMarkInDetail_C2() throws SQLException {
        String table = "guard_failure_epoch";
        String url = TestDatabase.POSTGRESQL.rawUrl();
        String fenced = "jdbc:fencing:" + url.substring("jdbc:".length()) + "&fencing.schema=create&fencing.table="
                + table + "&fencing.issuer.check=off";
        try (Connection created = DriverManager.getConnection(fenced);
             Connection raw = DriverManager.getConnection(url);
             Statement s = raw.createStatement()) {
            s.execute("DELETE FROM " + table + " WHERE false"); // the table is there
            s.execute("INSERT INTO " + table + " (resource, epoch) VALUES ('gf', 7) ON CONFLICT (resource) DO UPDATE"
                    + " SET epoch = GREATEST(" + table + ".epoch, 7)");
            long mark = readMark(raw, table);
            try (PreparedStatement guard = raw.prepareStatement(
                    "SELECT public.fencing_guard_" + table + "(CAST(? AS text), CAST(? AS bigint), CAST(? AS bigint))")) {
                guard.setString(1, "gf");
                guard.setLong(2, mark - 1);
                guard.setLong(3, 4242);
                SQLException staleError = assertThrows(SQLException.class, guard::executeQuery);
                GuardFailure stale = GuardFailure.of(staleError, 4242);
                assertTrue(stale.stale());
                assertEquals(mark, stale.mark(), "pgjdbc's typed DETAIL carries the mark");
                assertNull(GuardFailure.of(staleError, 4243), "the verdict of another send");
                guard.setLong(2, mark + 1);
                assertFalse(GuardFailure.of(assertThrows(SQLException.class, guard::executeQuery), 4242).stale());
                guard.setLong(2, mark);
                guard.executeQuery().close();
            }
            assertNull(GuardFailure.of(assertThrows(SQLException.class, () -> s.execute("SELECT CAST('x' AS int)")), 0));
            assertFalse(created.isClosed());
        }
    }

    private static long readMark(Connection raw, String table) throws SQLException {
        try (Statement s = raw.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT epoch FROM " + table + " WHERE resource = 'gf'")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
