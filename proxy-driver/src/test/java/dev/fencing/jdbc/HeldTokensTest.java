package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The process-wide token source that coordinator modules feed (docs/coordinators.md). */
class HeldTokensTest {
    @Test
    void theGreatestOpenHoldIsInForceAndClosedHoldsNeverApply() {
        String resource = "held-" + System.nanoTime();
        assertEquals(OptionalLong.empty(), new HeldTokens().token(resource));
        HeldTokens.Hold five = HeldTokens.hold(resource, 5);
        HeldTokens.Hold nine = new SimpleLease(resource, 9).holdForProcess();
        assertEquals(OptionalLong.of(9), new HeldTokens().token(resource));
        nine.close();
        nine.close();
        assertEquals(OptionalLong.of(5), HeldTokens.held(resource));
        five.close();
        assertEquals(OptionalLong.empty(), HeldTokens.held(resource));
        assertThrows(IllegalArgumentException.class, () -> HeldTokens.hold(resource, 0));
        assertThrows(IllegalArgumentException.class, () -> HeldTokens.hold("no spaces", 1));
    }

    /** C2, C6: every thread's connection naming HeldTokens writes with the held token; a lower one is refused. */
    @Test
    void connectionsOfEveryThreadWriteWithTheHeldToken() throws Exception {
        String raw = "jdbc:h2:mem:held" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
        String url = "jdbc:fencing:" + raw.substring("jdbc:".length())
                + ";fencing.schema=create;fencing.resource=held;fencing.token.source=dev.fencing.jdbc.HeldTokens";
        try (Connection keep = DriverManager.getConnection(raw); Statement s = keep.createStatement()) {
            s.execute("CREATE TABLE t (x INT)");
            try (HeldTokens.Hold hold = HeldTokens.hold("held", 7)) {
                CompletableFuture.runAsync(() -> insert(url)).get();
            }
            SQLException missing = assertThrows(SQLException.class, () -> insertOrThrow(url));
            assertEquals(FencingSqlState.INVALID_TOKEN, missing.getSQLState());
            try (HeldTokens.Hold lower = HeldTokens.hold("held", 6)) {
                SQLException stale = assertThrows(SQLException.class, () -> insertOrThrow(url));
                assertEquals(FencingSqlState.STALE_TOKEN, stale.getSQLState());
            }
            s.execute("SHUTDOWN");
        }
    }

    private static void insert(String url) {
        try {
            insertOrThrow(url);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void insertOrThrow(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO t VALUES (1)");
        }
    }

    private record SimpleLease(String resource, long token) implements FencingLease {
    }
}
