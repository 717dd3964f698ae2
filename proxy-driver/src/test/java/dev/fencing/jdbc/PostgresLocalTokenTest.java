package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code SET LOCAL fencing.token} on PostgreSQL lasts exactly the server's transaction (SPEC C9): however that
 * transaction ends, seen by the driver or not, the token no longer applies afterwards.
 */
@RequiresPostgres
class PostgresLocalTokenTest extends LocalTokenTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    /** Ends the transaction the local token was set in (or undoes the SET LOCAL); returns how much it kept. */
    interface Ending {
        int end(Connection c, Statement s) throws SQLException;
    }

    private Map<String, Ending> endings() {
        Map<String, Ending> endings = new LinkedHashMap<>();
        endings.put("commit()", (c, s) -> {
            c.commit();
            return 1;
        });
        endings.put("rollback()", (c, s) -> {
            c.rollback();
            return 0;
        });
        endings.put("COMMIT as SQL", (c, s) -> {
            s.execute("COMMIT");
            return 1;
        });
        endings.put("ROLLBACK as SQL", (c, s) -> {
            s.execute("ROLLBACK");
            return 0;
        });
        endings.put("a PREPARE TRANSACTION that fails and rolls back", (c, s) -> {
            assertThrows(SQLException.class, () -> s.execute("PREPARE TRANSACTION 'fencing_local'"));
            return 0;
        });
        endings.put("a COMMIT that fails on a deferred constraint", (c, s) -> {
            s.executeUpdate("INSERT INTO " + table + "_d VALUES (1), (1)");
            assertThrows(SQLException.class, c::commit);
            return 0;
        });
        return endings;
    }

    @Test
    void aLocalTokenNeverOutlivesItsTransaction_C9() throws Exception {
        TestDatabase.exec(raw, "CREATE TABLE " + table + "_d (id INT, UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)");
        try {
            int expected = 0;
            for (Map.Entry<String, Ending> ending : endings().entrySet()) {
                try (Connection c = connect(); Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    s.execute("SET LOCAL fencing.token = 5");
                    assertEquals(OptionalLong.of(5), c.unwrap(FencedConnection.class).getFencingToken());
                    assertEquals(1, add(s, 1), ending.getKey());
                    expected += ending.getValue().end(c, s);
                    assertEquals(OptionalLong.empty(), c.unwrap(FencedConnection.class).getFencingToken(),
                            ending.getKey());
                    SQLException e = assertThrows(SQLException.class, () -> add(s, 1000), ending.getKey());
                    assertEquals(FencingSqlState.INVALID_TOKEN, e.getSQLState(), ending.getKey() + ": " + e);
                    c.rollback();
                }
                assertEquals(expected, value(), ending.getKey());
            }
            assertEquals(2, expected);
        } finally {
            TestDatabase.exec(raw, "DROP TABLE " + table + "_d");
        }
    }

    /**
     * SPEC C10: the transaction is admitted by the token in force before its first query; a savepoint before the
     * {@code SET LOCAL} left it read-only (PostgreSQL cannot make a subtransaction read-write), so its write is
     * refused, and rolling back to the savepoint ends the local token.
     */
    @Test
    void aLocalTokenAfterASavepointCannotAdmitTheTransaction_C10() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("SAVEPOINT before_local");
            s.execute("SET LOCAL fencing.token = 5");
            SQLException e = assertThrows(SQLException.class, () -> add(s, 1));
            assertEquals(FencingSqlState.INVALID_TOKEN, e.getSQLState(), e.toString());
            s.execute("ROLLBACK TO SAVEPOINT before_local");
            assertEquals(OptionalLong.empty(), c.unwrap(FencedConnection.class).getFencingToken());
            c.rollback();
        }
        assertEquals(0, value());
    }

    @Test
    void aLocalTokenInABlockBegunAsSqlEndsWithIt_C9() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.execute("SET LOCAL fencing.token = 5");
            assertEquals(1, add(s, 1));
            s.execute("COMMIT");
            assertRefused(FencingSqlState.INVALID_TOKEN, s);
            s.execute("BEGIN");
            try (PreparedStatement ps = c.prepareStatement("SET LOCAL fencing.token = 5")) {
                ps.execute();
            }
            assertEquals(1, add(s, 10));
            s.execute("ROLLBACK");
            assertRefused(FencingSqlState.INVALID_TOKEN, s);
        }
        assertEquals(1, value());
    }

    @Test
    void aTokenLeftAsASessionSettingWithSetConfigIsNoToken_C9() throws Exception {
        // found by review: after SET LOCAL, set_config(..., false) (a read) left the token for the next borrower
        try (Connection c = connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("SET LOCAL fencing.token = 5");
            assertEquals(1, add(s, 1));
            c.commit();
            s.executeQuery("SELECT set_config('fencing.token', '5', false)").close();
            c.commit();
            c.clearWarnings();
            c.setAutoCommit(true);
            assertRefused(FencingSqlState.INVALID_TOKEN, s);
            c.setAutoCommit(false);
            assertRefused(FencingSqlState.INVALID_TOKEN, s);
            c.rollback();
        }
        assertEquals(1, value());
    }

    @Test
    void setLocalOutsideATransactionBlockIsRefusedWithTheServersState_C9() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.execute("SET LOCAL fencing.token = 5"));
            assertEquals("25P01", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("transaction"), e.getMessage());
            assertRefused(FencingSqlState.INVALID_TOKEN, s);
        }
        assertEquals(0, value());
    }

    @Test
    void aLocalTokenWinsOverTheConnectionsUntilItsTransactionEnds_C9() throws Exception {
        try (Connection c = connect("fencing.token=1"); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            assertRefused(FencingSqlState.STALE_TOKEN, s);
            c.rollback();
            s.execute("SET LOCAL fencing.token = 5");
            assertEquals(1, add(s, 1));
            c.commit();
            assertRefused(FencingSqlState.STALE_TOKEN, s);
            c.rollback();
        }
        assertEquals(1, value());
    }

    @Test
    void setOrResetAsSqlEndsALocalTokenAsOnPostgres_C9() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("SET LOCAL fencing.token = 5");
            s.execute("SET fencing.token = 4");
            assertRefused(FencingSqlState.STALE_TOKEN, s);
            c.rollback();
            s.execute("SET LOCAL fencing.token = 5");
            s.execute("RESET fencing.token");
            assertRefused(FencingSqlState.INVALID_TOKEN, s);
            c.rollback();
        }
        assertEquals(0, value());
    }

    @Test
    void invalidOrUnsupportedLocalSettingsAreRefusedAndSetNothing_C9() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            for (String value : new String[] {"abc", "-5", "0", "'5; UPDATE x SET y = 1'", "99999999999999999999"}) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute("SET LOCAL fencing.token = " + value));
                assertEquals(FencingSqlState.INVALID_TOKEN, e.getSQLState(), value + ": " + e.getMessage());
                assertRefused(FencingSqlState.INVALID_TOKEN, s);
                c.rollback();
            }
            SQLException e = assertThrows(SQLException.class, () -> s.execute("SET LOCAL fencing.resource = 'r'"));
            assertEquals(FencingSqlState.CONFIGURATION, e.getSQLState(), e.getMessage());
            assertEquals(resource, c.unwrap(FencedConnection.class).getFencingResource());
            c.rollback();
        }
        assertEquals(0, value());
    }
}
