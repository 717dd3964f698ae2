package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The session fence ({@code fencing.guard=session}) on the real PostgreSQL server, with the database as judge:
 * registered sessions write untouched, an epoch change ends the sessions of older tokens before its mark commits
 * (SPEC C4), and no client can remove a live session's registration (C9).
 */
@RequiresPostgres
class PostgresSessionFenceTest {
    private final ExecutorService threads = Executors.newFixedThreadPool(4);
    private String raw;
    private String name;
    /** The epoch table, in a schema of the test's own: the fence's functions live beside it, apart from other runs. */
    private String epoch;
    private String data;
    private String resource;

    @BeforeEach
    void setUp() throws Exception {
        raw = TestDatabase.POSTGRESQL.rawUrl();
        name = TestDatabase.unique("sfence");
        epoch = name + ".fence";
        data = name + "_data";
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE SCHEMA " + name, "CREATE TABLE " + data + " (id INT PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO " + data + " SELECT g, 0 FROM generate_series(1, 4) g");
        try (Connection c = fenced(5)) {
            assertEquals(1, write(c, 1, 1));
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        threads.shutdownNow();
        TestDatabase.dropNamed(raw, name);
    }

    private Connection fenced(long token) throws SQLException {
        return TestDatabase.fencedAt(token, raw, "fencing.schema=create", "fencing.guard=session",
                "fencing.table=" + epoch, "fencing.resource=" + resource);
    }

    private int write(Connection c, int id, int v) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate("UPDATE " + data + " SET v = " + v + " WHERE id = " + id);
        }
    }

    private long query(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private int value(int id) throws SQLException {
        return (int) query("SELECT v FROM " + data + " WHERE id = " + id);
    }

    private long mark() throws SQLException {
        return query("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "'");
    }

    private long registrations(long token) throws SQLException {
        return query("SELECT count(*) FROM " + epoch + "_session WHERE resource = '" + resource + "' AND pid <> 0"
                + " AND token = " + token);
    }

    @Test
    void aRegisteredSessionWritesWithoutTouchingTheEpochRow() throws Exception {
        try (Connection c = fenced(5); Connection locker = DriverManager.getConnection(raw)) {
            assertEquals(1, write(c, 2, 2)); // registers
            assertEquals(1, registrations(5)); // the set-up's connection advanced the mark instead of registering
            locker.setAutoCommit(false);
            try (Statement s = locker.createStatement()) {
                s.executeQuery("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "' FOR UPDATE").close();
            }
            // A statement guard would wait for the epoch row; the registered session does not touch it.
            try (Statement s = c.createStatement()) {
                s.execute("SET statement_timeout = 2000");
                assertEquals(1, s.executeUpdate("UPDATE " + data + " SET v = 3 WHERE id = 2"));
                c.setAutoCommit(false);
                assertEquals(1, s.executeUpdate("UPDATE " + data + " SET v = 4 WHERE id = 3"));
                c.commit();
            }
            locker.rollback();
        }
        assertEquals(3, value(2));
        assertEquals(4, value(3));
    }

    /** Scans of the epoch table, as the server counts them (each query runs in a new session: a fresh view). */
    private long epochTableReads() throws SQLException {
        return query("SELECT COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) FROM pg_stat_user_tables WHERE schemaname = '"
                + name + "' AND relname = 'fence'");
    }

    @Test
    void perStatementTheServerDoesWhatTheRawDriverDoes() throws Exception {
        try (Connection c = fenced(5)) {
            write(c, 1, 1); // registers
        }
        Thread.sleep(200); // a closed backend flushes its statistics as it exits
        long before = epochTableReads();
        try (Connection c = fenced(5); java.sql.PreparedStatement update = c.prepareStatement("UPDATE " + data
                + " SET v = v + 1 WHERE id = ?")) {
            for (int i = 0; i < 200; i++) {
                update.setInt(1, 1 + i % 4);
                assertEquals(1, update.executeUpdate());
            }
            c.setAutoCommit(false);
            for (int i = 0; i < 50; i++) {
                update.setInt(1, 1 + i % 4);
                update.executeUpdate();
                c.commit();
            }
        }
        long deadline = System.currentTimeMillis() + 5000;
        long after = epochTableReads();
        while (after == before && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            after = epochTableReads();
        }
        // One registration of the new connection reads the epoch row; 250 mutations add nothing.
        assertTrue(after - before >= 1 && after - before <= 2, "epoch table reads: " + (after - before));
    }

    @Test
    void aTransactionThatStartsWithAReadRegistersSoItsWritesGoUntouched() throws Exception {
        try (Connection c = fenced(5); Connection locker = DriverManager.getConnection(raw);
             Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = 2000");
            locker.setAutoCommit(false);
            try (Statement l = locker.createStatement()) {
                l.executeQuery("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "' FOR UPDATE").close();
            }
            c.setAutoCommit(false);
            // The registration waits for the epoch row like any locking read: released after a moment.
            Future<?> release = threads.submit(() -> {
                Thread.sleep(300);
                locker.rollback();
                return null;
            });
            s.executeQuery("SELECT v FROM " + data + " WHERE id = 1").close(); // registers, then reads
            release.get(5, TimeUnit.SECONDS);
            assertEquals(1, registrations(5));
            try (Statement l = locker.createStatement()) {
                l.executeQuery("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "' FOR UPDATE").close();
            }
            assertEquals(1, s.executeUpdate("UPDATE " + data + " SET v = 9 WHERE id = 1")); // no wait: untouched
            c.commit();
            locker.rollback();
        }
        assertEquals(9, value(1));
    }

    @Test
    void aReadWithAStaleTokenStillReadsAndRegistersNothing() throws Exception {
        try (Connection next = fenced(6)) {
            write(next, 2, 60);
        }
        try (Connection old = fenced(5); Statement s = old.createStatement();
             ResultSet rs = s.executeQuery("SELECT v FROM " + data + " WHERE id = 2")) {
            assertTrue(rs.next());
            assertEquals(60, rs.getInt(1));
        }
        assertEquals(0, registrations(5));
    }

    @Test
    void anEpochChangeEndsTheOldOwnersOpenTransactionBeforeItsMarkCommits() throws Exception {
        try (Connection old = fenced(5); Connection next = fenced(6)) {
            old.setAutoCommit(false);
            assertEquals(1, write(old, 1, 50)); // registers while idle, then writes in its transaction
            assertEquals(1, write(next, 2, 60)); // advances: ends the old session first
            assertEquals(6, mark());
            assertThrows(SQLException.class, old::commit);
        }
        assertEquals(1, value(1), "the old owner's uncommitted write rolled back");
        assertEquals(60, value(2));
        assertEquals(0, registrations(5));
    }

    @Test
    void anIdleOldSessionCannotWriteAfterTheEpochChanged() throws Exception {
        try (Connection old = fenced(5); Connection next = fenced(6)) {
            assertEquals(1, write(old, 1, 50));
            assertEquals(1, write(next, 2, 60));
            assertThrows(SQLException.class, () -> write(old, 3, 70));
            assertFalse(old.isValid(2));
        }
        assertEquals(50, value(1));
        assertEquals(0, value(3));
    }

    @Test
    void aStaleTokenIsRefusedAtRegistrationAndChangesNothing() throws Exception {
        try (Connection next = fenced(6)) {
            write(next, 2, 60);
        }
        try (Connection old = fenced(5)) {
            SQLException e = assertThrows(SQLException.class, () -> write(old, 1, 50));
            assertEquals(FencingSqlState.STALE_TOKEN, e.getSQLState());
            assertEquals(0, registrations(5));
        }
        assertEquals(1, value(1));
    }

    @Test
    void theDatabaseRefusesToRemoveOrChangeALiveRegistration() throws Exception {
        try (Connection c = fenced(5); Connection admin = DriverManager.getConnection(raw);
             Statement s = admin.createStatement()) {
            write(c, 1, 1);
            String table = epoch + "_session";
            for (String tamper : new String[] {
                    "DELETE FROM " + table + " WHERE pid <> 0",
                    "UPDATE " + table + " SET token = 99 WHERE pid <> 0",
                    "UPDATE " + table + " SET pid = 1 WHERE pid <> 0",
                    "TRUNCATE " + table,
                    "INSERT INTO " + table + " VALUES ('" + resource + "', 1, now(), 5)"}) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute(tamper), tamper);
                assertEquals("ZF005", e.getSQLState(), tamper);
            }
            assertEquals(1, registrations(5));
            // Through the fencing driver the table is protected like the epoch table.
            try (Statement fs = c.createStatement()) {
                SQLException e = assertThrows(SQLException.class, () -> fs.execute("DELETE FROM " + table));
                assertEquals(FencingSqlState.PROTECTED, e.getSQLState());
            }
        }
    }

    @Test
    void aRegisteredSessionCannotRaiseItsOwnMarkEvenThroughAFunction() throws Exception {
        TestDatabase.exec(raw, "CREATE FUNCTION " + name + "_raise() RETURNS int LANGUAGE sql AS $$ UPDATE " + epoch
                + " SET epoch = epoch + 1 WHERE resource = '" + resource + "' RETURNING 1 $$");
        try (Connection c = fenced(5)) {
            write(c, 1, 10);
            try (Statement s = c.createStatement()) {
                SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT " + name + "_raise()"));
                assertEquals("ZF005", e.getSQLState());
            }
            assertEquals(5, mark());
            assertEquals(1, write(c, 1, 11));
        }
        assertEquals(11, value(1));
    }

    @Test
    void aConnectionRegisteredAtOneTokenIsClosedWhenAskedToWriteWithANewerOne() throws Exception {
        try (Connection c = fenced(5)) {
            write(c, 1, 10);
            c.unwrap(FencedConnection.class).setFencingToken(6);
            SQLException e = assertThrows(SQLException.class, () -> write(c, 1, 11));
            assertEquals("08006", e.getSQLState());
            assertTrue(c.isClosed() || !c.isValid(1));
        }
        assertEquals(10, value(1));
        assertEquals(5, mark());
    }

    @Test
    void anEpochChangeUnderRepeatableReadThatCannotSeeANewerRegistrationFailsClosed() throws Exception {
        try (Connection next = fenced(6); Connection old = fenced(5)) {
            next.setAutoCommit(false);
            next.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement s = next.createStatement()) {
                s.executeQuery("SELECT count(*) FROM " + data).close(); // the snapshot is taken here
            }
            assertEquals(1, write(old, 1, 50)); // registers after that snapshot
            SQLException e = assertThrows(SQLException.class, () -> write(next, 2, 60));
            assertEquals("40001", e.getSQLState());
            next.rollback();
            assertEquals(5, mark());
            assertEquals(1, write(next, 2, 60)); // a new snapshot sees the registration and ends it
            next.commit();
            assertEquals(6, mark());
            assertThrows(SQLException.class, () -> write(old, 1, 51));
        }
        assertEquals(50, value(1));
        assertEquals(60, value(2));
    }

    @Test
    void concurrentOldOwnersNeverCommitAfterTheNewMark() throws Exception {
        // Writers at token 5 loop in transactions on their own connections; an advance to 6 happens meanwhile.
        // Each commit records the token it held; no row of token 5 may have committed after the advance.
        TestDatabase.exec(raw, "CREATE TABLE " + name + "_log (token BIGINT, at TIMESTAMPTZ DEFAULT clock_timestamp())");
        Future<?>[] writers = new Future<?>[3];
        for (int w = 0; w < writers.length; w++) {
            writers[w] = threads.submit(() -> {
                try (Connection c = fenced(5); Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    for (int i = 0; i < 10_000; i++) {
                        s.executeUpdate("INSERT INTO " + name + "_log (token) VALUES (5)");
                        s.executeQuery("SELECT pg_sleep(0.001)").close();
                        c.commit();
                    }
                } catch (SQLException expected) {
                    // ended by the advance
                }
                return null;
            });
        }
        Thread.sleep(500);
        try (Connection next = fenced(6); Statement s = next.createStatement()) {
            s.executeUpdate("INSERT INTO " + name + "_log (token) VALUES (6)");
        }
        for (Future<?> writer : writers) {
            writer.get(60, TimeUnit.SECONDS);
        }
        long old = query("SELECT count(*) FROM " + name + "_log WHERE token = 5");
        assertNotEquals(0, old, "the old owners wrote before the advance");
        // Commit order: the new epoch's row is the last one; xmin orders commits here as all are short.
        long after = query("SELECT count(*) FROM " + name + "_log WHERE token = 5 AND at > (SELECT at FROM " + name
                + "_log WHERE token = 6)");
        assertEquals(0, after);
        assertEquals(6, mark());
    }

    private Connection fencedAs(String user, long token) throws SQLException {
        String url = TestDatabase.fenced(raw, "fencing.guard=session", "fencing.table=" + epoch,
                "fencing.resource=" + resource, "fencing.issuer.check=off").replace("user=postgres", "user=" + user);
        Connection c = DriverManager.getConnection(url);
        c.unwrap(FencedConnection.class).setFencingToken(token);
        return c;
    }

    /** Two roles of the test cluster: a plain one, and one that may signal other roles' sessions (found by review). */
    private void roles() throws SQLException {
        TestDatabase.exec(raw,
                "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'fencing_test_plain') THEN"
                        + " CREATE ROLE fencing_test_plain LOGIN; END IF; IF NOT EXISTS (SELECT 1 FROM pg_roles"
                        + " WHERE rolname = 'fencing_test_signal') THEN CREATE ROLE fencing_test_signal LOGIN; END IF;"
                        + " END $$",
                "GRANT pg_signal_backend TO fencing_test_signal",
                "GRANT USAGE ON SCHEMA " + name + " TO fencing_test_plain, fencing_test_signal",
                "GRANT ALL ON " + data + ", " + epoch + ", " + epoch + "_session TO fencing_test_plain, fencing_test_signal",
                "GRANT SELECT ON " + epoch + "_resource TO fencing_test_plain, fencing_test_signal");
    }

    @Test
    void anEpochChangeEndsAnOldSessionOfAnotherRoleItMaySignalThoughItCannotSeeItsStart() throws Exception {
        roles();
        try (Connection old = fencedAs("fencing_test_plain", 5); Connection next = fencedAs("fencing_test_signal", 6)) {
            assertEquals(1, write(old, 1, 50));
            assertEquals(1, write(next, 2, 60));
            assertThrows(SQLException.class, () -> write(old, 3, 70));
        }
        assertEquals(6, mark());
        assertEquals(0, value(3));
    }

    @Test
    void anEpochChangeThatMayNotEndAnOldSessionFailsAndTheMarkStays() throws Exception {
        roles();
        try (Connection old = fenced(5); Connection next = fencedAs("fencing_test_plain", 6)) {
            assertEquals(1, write(old, 1, 50)); // a superuser's session: the plain role may not end it
            SQLException e = assertThrows(SQLException.class, () -> write(next, 2, 60));
            assertEquals("42501", e.getSQLState(), e.getMessage());
            assertEquals(5, mark());
            assertEquals(1, write(old, 3, 70));
        }
        assertEquals(70, value(3));
        assertEquals(0, value(2));
    }

    @Test
    void aRegistrationCannotBeDeletedByAnotherRoleNorThroughAnOldViewOfTheSessions() throws Exception {
        roles();
        try (Connection victim = fenced(5); Connection other = DriverManager.getConnection(
                raw.replace("user=postgres", "user=fencing_test_plain")); Connection same = DriverManager.getConnection(raw)) {
            String delete = "DELETE FROM " + epoch + "_session WHERE pid <> 0";
            same.setAutoCommit(false);
            try (Statement s = same.createStatement()) {
                s.executeQuery("SELECT count(*) FROM pg_stat_activity").close(); // a view from before the victim registered
                write(victim, 1, 10);
                SQLException e = assertThrows(SQLException.class, () -> s.executeUpdate(delete));
                assertEquals("ZF005", e.getSQLState());
            }
            same.rollback();
            try (Statement s = other.createStatement()) {
                SQLException e = assertThrows(SQLException.class, () -> s.executeUpdate(delete));
                assertEquals("ZF005", e.getSQLState());
            }
            assertEquals(1, registrations(5));
        }
    }

    @Test
    void aConnectionWithoutATokenCannotLockTheFencesTables() throws Exception {
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + epoch,
                "fencing.resource=" + resource)); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            for (String lock : new String[] {"LOCK TABLE " + epoch + " IN ACCESS EXCLUSIVE MODE",
                    "SELECT * FROM " + epoch + " FOR UPDATE", "select * from " + epoch + "_session for share",
                    "LOCK " + epoch + "_session"}) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute(lock), lock);
                assertEquals(FencingSqlState.PROTECTED, e.getSQLState(), lock);
            }
            c.rollback();
            s.executeQuery("SELECT * FROM " + epoch).close();
        }
    }

    @Test
    void aRegistrationThatWaitsForTheEpochRowGivesWayToTheCallersTimeout() throws Exception {
        try (Connection locker = DriverManager.getConnection(raw); Connection c = fenced(5);
             Statement s = c.createStatement()) {
            locker.setAutoCommit(false);
            try (Statement l = locker.createStatement()) {
                l.executeQuery("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "' FOR UPDATE").close();
            }
            s.setQueryTimeout(2);
            long started = System.nanoTime();
            SQLException e = assertThrows(SQLException.class,
                    () -> s.executeUpdate("UPDATE " + data + " SET v = 5 WHERE id = 1"));
            assertEquals("57014", e.getSQLState(), e.getMessage());
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(8));
            locker.rollback();
            assertEquals(1, write(c, 1, 6));
        }
        assertEquals(6, value(1));
    }

    @Test
    void twoPhaseCommitIsRefusedUnderTheSessionFence() throws Exception {
        try (Connection c = fenced(5); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.executeUpdate("UPDATE " + data + " SET v = 5 WHERE id = 1");
            // found by review: comments between the two words passed a check on the raw text
            for (String prepare : new String[] {"PREPARE TRANSACTION 'sfence'", "PREPARE/**/TRANSACTION 'sfence'",
                    "PREPARE -- x\nTRANSACTION 'sfence'"}) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute(prepare), prepare);
                assertEquals(FencingSqlState.CANNOT_GUARD, e.getSQLState(), prepare);
            }
            c.rollback();
        }
    }

    @Test
    void inSimpleQueryModeAPreparedTextWithAQuestionMarkInACommentIsRefused_C9() throws Exception {
        // found by review: pgjdbc's simple mode puts values into the text and reads /*/ as a whole comment
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + epoch,
                "fencing.resource=" + resource, "fencing.token=3", "preferQueryMode=simple"))) {
            SQLException e = assertThrows(SQLException.class,
                    () -> c.prepareStatement("SELECT 1 /*/ '*/, 'p ? ' AS b /*/ '*/"));
            assertEquals(FencingSqlState.CANNOT_GUARD, e.getSQLState());
        }
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + epoch,
                "fencing.resource=" + resource, "fencing.token=3"))) {
            c.prepareStatement("SELECT 'what?' FROM " + data + " WHERE id = ?").close(); // extended mode: the server binds
        }
    }
}
