package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ReadOnlyModeTest} on PostgreSQL under the session fence: unregistered sessions are read-only (SPEC C10). */
@RequiresPostgres
class PostgresSessionFenceReadOnlyModeTest extends PostgresReadOnlyModeTest {
    @Override
    String[] settings() {
        return new String[] {"fencing.guard=session"};
    }

    /**
     * A registration covers work at its own token only: with the token cleared (a pool's {@code endRequest}), a stale
     * one, or in a transaction the token changed in, the registered session is read-only on the server, and its
     * registered token makes it read-write again (found by review: after a pool's clean-up, a read of a writing view
     * wrote). The judge is a raw connection.
     */
    @Test
    void aRegisteredSessionIsReadOnlyForWorkItsTokenDoesNotCover_C10() throws Exception {
        try (Connection c = owner(MARK); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET v = v + 1 WHERE id = 2"); // registers the session at MARK
            assertEquals(201, value(2));
            c.setClientInfo("fencing.token", String.valueOf(MARK - 1));
            assertRefusedUnchanged(c, hiddenWrite());
            c.setClientInfo("fencing.token", String.valueOf(MARK));
            s.executeQuery(hiddenWrite()).close();
            assertEquals(101, value(1), "the registered token writes again");
            c.endRequest();
            assertRefusedUnchanged(c, hiddenWrite());
            c.setClientInfo("fencing.token", String.valueOf(MARK));
            c.setAutoCommit(false);
            s.executeQuery("SELECT 1").close();
            c.setClientInfo("fencing.token", String.valueOf(MARK - 1));
            assertRefusedUnchanged(c, hiddenWrite());
            c.rollback();
            c.setAutoCommit(true);
            // the same in a transaction opened by BEGIN sent as SQL (found by the third review)
            c.setClientInfo("fencing.token", String.valueOf(MARK));
            s.execute("BEGIN");
            s.executeQuery("SELECT 1").close();
            c.setClientInfo("fencing.token", String.valueOf(MARK - 1));
            SQLException refused = assertThrows(SQLException.class, () -> s.executeQuery(hiddenWrite()).close());
            assertTrue(refused.getSQLState().startsWith("ZF") || "25006".equals(refused.getSQLState()), refused::toString);
            s.execute("ROLLBACK");
        }
        assertEquals(101, value(1));
    }
}
