package dev.fencing.jdbc;

import dev.fencing.jdbc.audit.FenceMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Registrations under the session fence that run at the same moment, at the caller's isolation level whatever it is,
 * on the real PostgreSQL server with real threads, the server as judge (its session table, its processes, each
 * session's own {@code default_transaction_read_only}): they never make each other fail (issue 22, item 3), and the
 * hand-over still ends every one of them.
 */
@RequiresPostgres
class PostgresSessionRegistrationTest {
    private static final int SESSIONS = 16;
    /** How many times one idle point runs a registration that failed for a transient reason (SessionFence's). */
    private static final int ATTEMPTS = 3;

    private final ExecutorService threads = Executors.newFixedThreadPool(SESSIONS);
    private String raw;
    private String name;
    private String epoch;
    private String data;
    private String resource;

    @BeforeEach
    void setUp() throws Exception {
        raw = TestDatabase.POSTGRESQL.rawUrl();
        name = TestDatabase.unique("sreg");
        epoch = name + ".fence";
        data = name + "_data";
        resource = TestDatabase.unique("reg");
        TestDatabase.exec(raw, "CREATE SCHEMA " + name, "CREATE TABLE " + data + " (id INT PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO " + data + " SELECT g, 0 FROM generate_series(1, " + SESSIONS + ") g");
        try (Connection c = fenced(5); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("UPDATE " + data + " SET v = 1 WHERE id = 1")); // raises the mark to 5
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        threads.shutdownNow();
        TestDatabase.dropNamed(raw, name);
    }

    private Connection fenced(long token, String... more) throws SQLException {
        List<String> settings = new ArrayList<>(List.of("fencing.schema=create", "fencing.guard=session",
                "fencing.table=" + epoch, "fencing.resource=" + resource));
        settings.addAll(List.of(more));
        return TestDatabase.fencedAt(token, raw, settings.toArray(String[]::new));
    }

    private long query(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The live server processes registered at {@code token}, as the server says. */
    private Set<Integer> registeredLive(long token) throws SQLException {
        Set<Integer> pids = new TreeSet<>();
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT r.pid FROM " + epoch + "_session r JOIN pg_stat_activity a"
                     + " ON a.pid = r.pid AND a.backend_start = r.backend_start WHERE r.resource = '" + resource
                     + "' AND r.pid <> 0 AND r.token = " + token)) {
            while (rs.next()) {
                pids.add(rs.getInt(1));
            }
        }
        return pids;
    }

    private Set<Integer> alive(Set<Integer> pids) throws SQLException {
        Set<Integer> found = new TreeSet<>();
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pid FROM pg_stat_activity")) {
            while (rs.next()) {
                if (pids.contains(rs.getInt(1))) {
                    found.add(rs.getInt(1));
                }
            }
        }
        return found;
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** How a test's connections set their isolation level. */
    private interface Isolation {
        void apply(Connection c) throws SQLException;
    }

    @Test
    void sixteenSerializableConnectionsRegisteringAtOnceAllRegister() throws Exception {
        concurrentRegistrations(c -> c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE), "serializable");
    }

    @Test
    void sixteenRepeatableReadConnectionsRegisteringAtOnceAllRegister() throws Exception {
        // the session's default from its startup options, as a deployment's PGOPTIONS or role setting would give it
        concurrentRegistrations(c -> { }, "repeatable read",
                "options=-c%20default_transaction_isolation%3Drepeatable%5C%20read");
    }

    /**
     * Sixteen connections at the caller's {@code isolation} hold their transaction's first read back behind a lock on
     * the epoch row, so that all sixteen registrations take their snapshots first and then write the generation row
     * together (what made three of four fail under BenchBase's SERIALIZABLE transactions): every one registers, its
     * session is read-write on the server, its transactions run at the caller's level, and its writes go untouched.
     * Then one epoch change ends them all before its mark commits.
     */
    private void concurrentRegistrations(Isolation isolation, String level, String... settings) throws Exception {
        List<Connection> connections = new ArrayList<>();
        try (Connection locker = DriverManager.getConnection(raw)) {
            for (int i = 0; i < SESSIONS; i++) {
                Connection c = fenced(5, settings);
                connections.add(c);
                isolation.apply(c);
                c.setAutoCommit(false);
            }
            locker.setAutoCommit(false);
            try (Statement l = locker.createStatement()) {
                l.executeQuery("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "' FOR UPDATE").close();
            }
            CyclicBarrier start = new CyclicBarrier(SESSIONS + 1);
            List<Future<Integer>> pids = new ArrayList<>();
            for (int i = 0; i < SESSIONS; i++) {
                Connection c = connections.get(i);
                int id = i + 1;
                pids.add(threads.submit(() -> {
                    start.await();
                    try (Statement s = c.createStatement()) {
                        // the transaction's first statement is a read: it registers first (waiting for the epoch row)
                        s.executeQuery("SELECT v FROM " + data + " WHERE id = " + id).close();
                        assertEquals(level, one(c, "SHOW transaction_isolation"), "the caller's own level");
                        assertEquals(1, s.executeUpdate("UPDATE " + data + " SET v = v + 1 WHERE id = " + id));
                        c.commit();
                    }
                    return Integer.valueOf(one(c, "SELECT pg_backend_pid()"));
                }));
            }
            start.await();
            Thread.sleep(300); // every registration is now waiting for the epoch row, its snapshot taken
            locker.rollback();
            Set<Integer> sessions = new TreeSet<>();
            for (Future<Integer> pid : pids) {
                sessions.add(pid.get(30, TimeUnit.SECONDS));
            }
            assertEquals(SESSIONS, sessions.size());
            assertEquals(0, FenceMetrics.of(resource).getSessionFallbacks(), "no registration fell back");
            assertEquals(sessions, registeredLive(5), "every session is registered on the server");
            for (Connection c : connections) {
                assertEquals("off", one(c, "SHOW default_transaction_read_only"), "a registered session is read-write");
                c.commit();
            }
            assertEquals(0L, query("SELECT count(*) FROM " + data + " WHERE id > 1 AND v <> 1"));

            try (Connection next = fenced(6); Statement s = next.createStatement()) {
                s.executeQuery("SELECT 1").close(); // connected: the time below is the hand-over's alone
                long started = System.nanoTime();
                assertEquals(1, s.executeUpdate("UPDATE " + data + " SET v = 100 WHERE id = 1")); // the hand-over
                long handOverMicros = (System.nanoTime() - started) / 1000;
                System.out.println("hand-over with " + SESSIONS + " registered sessions (" + level + "): "
                        + handOverMicros + " µs (the new owner's first write: its advance of the mark, ending them)");
            }
            assertEquals(6L, query("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "'"));
            assertTrue(alive(sessions).isEmpty(), "every old session ended before the new mark committed");
            assertEquals(0L, query("SELECT count(*) FROM " + epoch + "_session WHERE resource = '" + resource
                    + "' AND pid <> 0 AND token = 5"));
            for (Connection c : connections) {
                assertFalse(c.isValid(2), "the old owner's connection is gone");
            }
        } finally {
            for (Connection c : connections) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // ended by the hand-over
                }
            }
        }
    }

    /** The next {@code n} registrations of a live session fail with 40001 in their insert (a sequence counts them). */
    private void plantSerializationFailures(int n) throws SQLException {
        TestDatabase.exec(raw, "CREATE SEQUENCE " + name + ".faults",
                "CREATE FUNCTION " + name + ".fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " IF NEW.pid <> 0 AND nextval('" + name + ".faults') <= " + n + " THEN"
                        + " RAISE EXCEPTION 'planted' USING ERRCODE = '40001'; END IF; RETURN NEW; END $$",
                "CREATE TRIGGER planted_fault BEFORE INSERT ON " + epoch + "_session FOR EACH ROW EXECUTE FUNCTION "
                        + name + ".fault()");
    }

    @Test
    void aRegistrationThatFailsForATransientReasonIsRunAgainAtOnce() throws Exception {
        plantSerializationFailures(ATTEMPTS - 1);
        long fallbacks = FenceMetrics.of(resource).getSessionFallbacks();
        try (Connection c = fenced(5); Statement s = c.createStatement()) {
            s.executeQuery("SELECT v FROM " + data + " WHERE id = 2").close();
            assertEquals(Set.of(Integer.valueOf(one(c, "SELECT pg_backend_pid()"))), registeredLive(5));
            assertEquals("off", one(c, "SHOW default_transaction_read_only"));
        }
        assertEquals(fallbacks, FenceMetrics.of(resource).getSessionFallbacks());
    }

    @Test
    void aRegistrationGivenUpIsCountedStaysReadOnlyAndIsTriedAgainAtALaterIdlePoint() throws Exception {
        plantSerializationFailures(ATTEMPTS);
        long fallbacks = FenceMetrics.of(resource).getSessionFallbacks();
        long registrations = FenceMetrics.of(resource).getSessionRegistrations();
        try (Connection c = fenced(5); Statement s = c.createStatement()) {
            // the first statement is where the registration runs: given up, the session stays read-only (C10)
            assertEquals("on", one(c, "SHOW default_transaction_read_only"), "not registered: read-only (C10)");
            assertEquals(fallbacks + 1, FenceMetrics.of(resource).getSessionFallbacks());
            assertEquals(Set.of(), registeredLive(5));
            int pid = Integer.parseInt(one(c, "SELECT pg_backend_pid()"));
            assertEquals(1, s.executeUpdate("UPDATE " + data + " SET v = 7 WHERE id = 2")); // guarded, or registered
            Thread.sleep(250); // past the first retry delay
            s.executeQuery("SELECT v FROM " + data + " WHERE id = 2").close(); // the next idle point registers
            assertEquals(Set.of(pid), registeredLive(5));
            assertEquals("off", one(c, "SHOW default_transaction_read_only"));
            assertEquals(registrations + 1, FenceMetrics.of(resource).getSessionRegistrations());
        }
        assertEquals(7L, query("SELECT v FROM " + data + " WHERE id = 2"));
    }
}
