package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No token-less client holds an epoch change off (liveness, docs/session-fence.md): the advisory-lock functions
 * that could take the fence's queue key need a current token through the driver, and an advance waits a bounded
 * time for whatever holds it (a raw session), then fails naming the holder, with nothing changed.
 */
@RequiresPostgres
class PostgresAdvanceLivenessTest {
    /** The first key of the fence's advisory locks ({@code EpochSql.ADVISORY_CLASS}, "FENC"). */
    private static final int FENCE_KEY = 0x46454E43;

    private String raw;
    private String name;
    private String epoch;
    private String resource;

    @BeforeEach
    void setUp() throws Exception {
        raw = TestDatabase.POSTGRESQL.rawUrl();
        name = TestDatabase.unique("liveness");
        epoch = name + ".fence";
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE SCHEMA " + name, "CREATE TABLE " + name + "_t (id int)");
        for (String guard : new String[]{"statement", "session"}) {
            try (Connection c = fenced(5, guard); Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE " + name + "_t SET id = 1"); // the mark is 5, every object in place
            }
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        TestDatabase.dropNamed(raw, name);
    }

    private Connection fenced(long token, String guard) throws SQLException {
        Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.table=" + epoch, "fencing.resource=" + resource, "fencing.guard=" + guard,
                "ApplicationName=liveness-test"));
        if (token > 0) {
            c.unwrap(FencedConnection.class).setFencingToken(token);
        }
        return c;
    }

    private long mark() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private String fenceKey() {
        return FENCE_KEY + ", hashtext('" + resource + "')";
    }

    @Test
    void theFencesAdvisoryKeyCannotBeTakenThroughTheDriverWithoutAToken() throws Exception {
        for (String guard : new String[]{"statement", "session"}) {
            try (Connection c = fenced(0, guard); Statement s = c.createStatement()) {
                for (String take : new String[]{"pg_advisory_lock_shared(" + fenceKey() + ")",
                        "pg_catalog.pg_advisory_lock(" + fenceKey() + ")", "pg_try_advisory_lock_shared(" + fenceKey()
                        + ")", "pg_advisory_xact_lock_shared(" + fenceKey() + ")"}) {
                    SQLException refused = assertThrows(SQLException.class,
                            () -> s.executeQuery("SELECT " + take).close(), take);
                    assertEquals(FencingSqlState.INVALID_TOKEN, refused.getSQLState(), take + ": " + refused);
                }
                assertEquals(0, heldFenceKeys(), guard + ": the resource's fence key is not held");
            }
        }
        try (Connection c = fenced(5, "statement"); Statement s = c.createStatement()) {
            s.executeQuery("SELECT pg_advisory_lock(42)").close(); // with a current token, for the app's own uses
            s.executeQuery("SELECT pg_advisory_unlock(42)").close();
        }
    }

    private long heldFenceKeys() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = "
                     + FENCE_KEY + " AND objid = oid(hashtext('" + resource + "')::bigint & 4294967295)"
                     + " AND objsubid = 2")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void anAdvanceHeldOffByARawSessionFailsWithinItsBoundAndNamesTheHolder_C4() throws Exception {
        for (String guard : new String[]{"statement", "session"}) {
            try (Connection holder = DriverManager.getConnection(raw + "&ApplicationName=fence-key-holder");
                 Statement h = holder.createStatement()) {
                int pid;
                try (ResultSet rs = h.executeQuery("SELECT pg_backend_pid(), pg_advisory_lock_shared(" + fenceKey()
                        + ")")) {
                    rs.next();
                    pid = rs.getInt(1);
                }
                try (Connection c = fenced(6, guard); Statement s = c.createStatement()) {
                    s.execute("SET lock_timeout = '800ms'");
                    long started = System.nanoTime();
                    SQLException held = assertThrows(SQLException.class,
                            () -> s.executeUpdate("UPDATE " + name + "_t SET id = 2"));
                    long waitedMs = (System.nanoTime() - started) / 1_000_000;
                    assertEquals("55P03", held.getSQLState(), held.toString());
                    assertTrue(held.getMessage().contains("pid " + pid) && held.getMessage().contains(
                            "fence-key-holder"), "the holder is named: " + held.getMessage());
                    assertTrue(waitedMs < 5_000, "within the bound: " + waitedMs + " ms");
                    assertEquals("800ms", show(s), "the session's own lock_timeout is unchanged");
                }
                assertEquals(5, mark(), "nothing changed");
            }
        }
    }

    @Test
    void anAdvanceInTheCallersTransactionLeavesItUsableAndItsLockTimeoutAsItWas_C4() throws Exception {
        try (Connection holder = DriverManager.getConnection(raw); Statement h = holder.createStatement()) {
            h.executeQuery("SELECT pg_advisory_lock_shared(" + fenceKey() + ")").close();
            try (Connection c = fenced(6, "statement"); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                s.execute("SET LOCAL lock_timeout = '700ms'");
                SQLException held = assertThrows(SQLException.class,
                        () -> s.executeUpdate("UPDATE " + name + "_t SET id = 2"));
                assertEquals("55P03", held.getSQLState(), held.toString());
                assertEquals("700ms", show(s), "the caller's transaction goes on, its lock_timeout as it set it");
                c.rollback();
            }
            h.executeQuery("SELECT pg_advisory_unlock_all()").close();
        }
        try (Connection c = fenced(6, "statement"); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("SET LOCAL lock_timeout = '700ms'");
            assertEquals(0, s.executeUpdate("UPDATE " + name + "_t SET id = 2 WHERE false"));
            assertEquals("700ms", show(s), "after an advance that got its lock");
            c.commit();
        }
        assertEquals(6, mark());
    }

    private static String show(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW lock_timeout")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
