package dev.fencing.jdbc;

import dev.fencing.jdbc.issuer.Lease;
import dev.fencing.jdbc.issuer.LeaseLostException;
import dev.fencing.jdbc.issuer.TokenIssuer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Network faults between the fencing driver and a real server, put there by a {@link FaultProxy}, with the database
 * as judge (every outcome is read through a raw connection straight to the server): a write whose answer never
 * arrives is an unknown outcome ({@code 08xxx}), never a success and never sent twice (SPEC C8, C10); a guard that
 * hangs is bounded by the caller's own timeouts; an owner partitioned for longer than its lease is refused when it
 * comes back (C2, C4); the issuer's renew under the same faults never reports a renewal the database did not record
 * (C7). The fault table of docs/testing.md is what these tests show.
 */
abstract class NetworkFaultTest {
    /** How long a test waits for what must happen soon; a hang is a failure, never a wait for ever. */
    static final long PATIENCE_MS = 15_000;

    final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "network-fault-test");
        t.setDaemon(true);
        return t;
    });
    String raw;
    String name;
    String epoch;
    String lease;
    String log;
    String resource;
    FaultProxy proxy;

    abstract TestDatabase database();

    /** The epoch table and lease table for the unique {@code name}; anything they need is created here. */
    abstract String[] tables(String name) throws SQLException;

    /** The underlying driver's URL setting that bounds every socket read, in milliseconds. */
    abstract String socketTimeout(long millis);

    @BeforeEach
    void setUp() throws Exception {
        raw = database().rawUrl();
        name = TestDatabase.unique("netfault");
        String[] tables = tables(name);
        epoch = tables[0];
        lease = tables[1];
        log = name + "_log";
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE TABLE " + log + " (writer VARCHAR(40) NOT NULL, token BIGINT NOT NULL)");
        try (TokenIssuer issuer = issuer(raw)) {
            issuer.createTables();
        }
        proxy = FaultProxy.to(raw);
    }

    @AfterEach
    void tearDown() throws Exception {
        threads.shutdownNow();
        proxy.close();
        TestDatabase.dropNamed(raw, name);
    }

    TokenIssuer issuer(String url) throws SQLException {
        Properties info = new Properties();
        info.setProperty("fencing.table", epoch);
        info.setProperty("fencing.lease.table", lease);
        return TokenIssuer.forUrl(url, info);
    }

    /**
     * The underlying driver's settings for connections through the proxy, so that every request carries its SQL
     * text, which {@link FaultProxy.Link#blackholeAfterRequestContaining} looks for.
     */
    abstract String[] textInEveryRequest();

    /**
     * What the request that commits an auto-commit guarded write contains: the write itself where the guard travels
     * ahead of it in one request, the driver's {@code COMMIT} where the write runs in a driver transaction.
     */
    abstract String autoCommitWriteCommits();

    /** A fenced connection through the proxy at {@code token}, with {@code settings} added. */
    Connection proxied(long token, String... settings) throws SQLException {
        String[] text = textInEveryRequest();
        String[] all = new String[text.length + settings.length];
        System.arraycopy(text, 0, all, 0, text.length);
        System.arraycopy(settings, 0, all, text.length, settings.length);
        return TestDatabase.fencedAt(token, proxy.url(raw), fencingSettings(all));
    }

    /** A fenced connection straight to the server at {@code token}. */
    Connection direct(long token, String... settings) throws SQLException {
        return TestDatabase.fencedAt(token, raw, fencingSettings(settings));
    }

    String[] fencingSettings(String... more) {
        String[] all = new String[more.length + 4];
        all[0] = "fencing.schema=create";
        all[1] = "fencing.table=" + epoch;
        all[2] = "fencing.lease.table=" + lease;
        all[3] = "fencing.resource=" + resource;
        System.arraycopy(more, 0, all, 4, more.length);
        return all;
    }

    static int write(Connection c, String log, String writer, long token) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate("INSERT INTO " + log + " (writer, token) VALUES ('" + writer + "', " + token + ")");
        }
    }

    int write(Connection c, String writer, long token) throws SQLException {
        return write(c, log, writer, token);
    }

    /** Rows {@code writer} has in the log, as the server has them. */
    long rows(String writer) throws SQLException {
        return query("SELECT count(*) FROM " + log + " WHERE writer = '" + writer + "'");
    }

    long mark() throws SQLException {
        return query("SELECT COALESCE(MAX(epoch), 0) FROM " + epoch + " WHERE resource = '" + resource + "'");
    }

    long query(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getLong(1);
        }
    }

    /** Waits until the server holds {@code expected} rows of {@code writer}: the blackholed request was served. */
    void awaitRows(String writer, long expected) throws Exception {
        long deadline = System.currentTimeMillis() + PATIENCE_MS;
        while (rows(writer) != expected) {
            if (System.currentTimeMillis() > deadline) {
                fail("the server never held " + expected + " rows of " + writer + "; it holds " + rows(writer));
            }
            Thread.sleep(20);
        }
    }

    /** The failure of {@code work}, which must fail within the test's patience. */
    static SQLException failure(Future<?> work) throws Exception {
        try {
            Object result = work.get(PATIENCE_MS, TimeUnit.MILLISECONDS);
            throw new AssertionError("expected a failure, got success: " + result);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                return sql;
            }
            throw e;
        }
    }

    static void assertUnknownOutcome(SQLException e) {
        assertTrue(e.getSQLState() != null && e.getSQLState().startsWith("08"),
                () -> "expected an 08xxx connection failure (outcome unknown), got " + e.getSQLState() + ": " + e);
        assertFalse(e instanceof FencingRefusedException, () -> "a lost answer is no refusal: " + e);
        // 08003 says there was no connection to send on: after a request went out, that hides the unknown outcome
        assertFalse("08003".equals(e.getSQLState()), () -> "the error of the request itself, not of a closed"
                + " connection met afterwards: " + e);
    }

    // ---------------------------------------------------------------- 1. the answer to a write never arrives

    /**
     * The write was served and committed by the server; its answer is lost and the connection reset: the caller
     * learns the outcome is unknown (08xxx), the database holds the write once, and nothing sends it again.
     */
    @Test
    void autoCommitWriteWhoseAnswerIsLostIsAnUnknownOutcomeWrittenOnce_C8() throws Exception {
        try (Connection c = proxied(1)) {
            assertEquals(1, write(c, "warmup", 1));
            FaultProxy.Link link = proxy.last();
            link.blackholeAfterRequestContaining(autoCommitWriteCommits());
            Future<Integer> written = threads.submit(() -> write(c, "lost", 1));
            assertTrue(link.awaitBlackholed(PATIENCE_MS));
            awaitRows("lost", 1);
            link.reset();
            assertUnknownOutcome(failure(written));
        }
        Thread.sleep(300);
        assertEquals(1, rows("lost"), "written exactly once");
    }

    /** The same with the request itself lost: the caller sees the same 08xxx, and the database holds nothing. */
    @Test
    void autoCommitWriteWhoseRequestIsLostIsTheSameUnknownOutcomeWrittenNever_C8() throws Exception {
        try (Connection c = proxied(1)) {
            assertEquals(1, write(c, "warmup", 1));
            FaultProxy.Link link = proxy.last();
            link.cutAfter(FaultProxy.Direction.TO_SERVER, 0);
            assertUnknownOutcome(assertThrows(SQLException.class, () -> write(c, "lost", 1)));
        }
        Thread.sleep(300);
        assertEquals(0, rows("lost"));
    }

    /** {@code commit()} sent, its answer lost: 08xxx, the transaction's writes committed once. */
    @Test
    void commitWhoseAnswerIsLostIsAnUnknownOutcomeCommittedOnce_C8() throws Exception {
        try (Connection c = proxied(1)) {
            assertEquals(1, write(c, "warmup", 1));
            c.setAutoCommit(false);
            write(c, "lost", 1);
            write(c, "lost", 1);
            FaultProxy.Link link = proxy.last();
            link.blackholeAfterRequestContaining("COMMIT");
            Future<?> committed = threads.submit(() -> {
                c.commit();
                return "committed";
            });
            assertTrue(link.awaitBlackholed(PATIENCE_MS));
            awaitRows("lost", 2);
            link.reset();
            assertUnknownOutcome(failure(committed));
        }
        Thread.sleep(300);
        assertEquals(2, rows("lost"));
    }

    /**
     * A batch in auto-commit runs in a transaction of the driver's, which the driver commits: that {@code COMMIT}'s
     * answer lost is the caller's unknown outcome (08xxx), never a driver error in its place, and the batch is
     * committed once.
     */
    @Test
    void driverTransactionWhoseCommitAnswerIsLostIsAnUnknownOutcomeCommittedOnce_C8() throws Exception {
        try (Connection c = proxied(1)) {
            assertEquals(1, write(c, "warmup", 1));
            FaultProxy.Link link = proxy.last();
            link.blackholeAfterRequestContaining("COMMIT");
            Future<int[]> batch = threads.submit(() -> {
                try (Statement s = c.createStatement()) {
                    s.addBatch("INSERT INTO " + log + " (writer, token) VALUES ('lost', 1)");
                    s.addBatch("INSERT INTO " + log + " (writer, token) VALUES ('lost', 1)");
                    return s.executeBatch();
                }
            });
            assertTrue(link.awaitBlackholed(PATIENCE_MS));
            awaitRows("lost", 2);
            link.reset();
            SQLException e = failure(batch);
            assertUnknownOutcome(e);
        }
        Thread.sleep(300);
        assertEquals(2, rows("lost"));
    }

    // ---------------------------------------------------------------- 2. a guard that hangs

    /**
     * The server stops answering while a guarded write is on its way (its request waits in the network): the
     * caller's network timeout ends the wait with 08xxx. When the network then heals, what was on its way still
     * arrives: the outcome stays unknown after the error, and the write lands at most once.
     */
    @Test
    void guardedWriteThatHangsIsBoundedByTheNetworkTimeout() throws Exception {
        try (Connection c = proxied(1)) {
            assertEquals(1, write(c, "warmup", 1));
            c.setNetworkTimeout(threads, 1500);
            FaultProxy.Link link = proxy.last();
            link.hold();
            long started = System.nanoTime();
            assertUnknownOutcome(assertThrows(SQLException.class, () -> write(c, "hung", 1)));
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertTrue(tookMs < 10_000, "bounded by the 1.5 s network timeout, took " + tookMs + " ms");
            link.heal();
        }
        Thread.sleep(500);
        long landed = rows("hung");
        assertTrue(landed <= 1, "at most once, found " + landed);
    }

    /**
     * The same bounded by the underlying driver's socket timeout given in the URL; the connection then breaks
     * for good (a partition TCP does not ride out), and nothing of the write reaches the database.
     */
    @Test
    void guardedWriteThatHangsIsBoundedByTheUrlsSocketTimeout() throws Exception {
        try (Connection c = proxied(1, socketTimeout(1500))) {
            assertEquals(1, write(c, "warmup", 1));
            FaultProxy.Link link = proxy.last();
            link.hold();
            assertUnknownOutcome(assertThrows(SQLException.class, () -> write(c, "hung", 1)));
            link.reset();
        }
        Thread.sleep(500);
        assertEquals(0, rows("hung"));
    }

    /**
     * A query timeout is no bound on a network that stops answering: the server ends the statement when it is told
     * to (pgjdbc's cancel on a connection of its own, MariaDB's {@code max_statement_time}), but that answer is lost
     * too; the socket timeout ends the wait, with 08xxx.
     */
    @Test
    void queryTimeoutAloneDoesNotEndANetworkHang() throws Exception {
        try (Connection c = proxied(1, socketTimeout(4000))) {
            assertEquals(1, write(c, "warmup", 1));
            FaultProxy.Link link = proxy.last();
            long started;
            SQLException e;
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(1);
                link.blackhole();
                started = System.nanoTime();
                e = assertThrows(SQLException.class,
                        () -> s.executeUpdate("INSERT INTO " + log + " (writer, token) VALUES ('hung', 1)"));
            }
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertUnknownOutcome(e);
            assertTrue(tookMs >= 3_000, "the 4 s socket timeout ended it, not the 1 s query timeout: " + tookMs + " ms");
            link.reset();
        }
    }

    /**
     * The guard waits on the server (another session holds the epoch row's exclusive lock, as an epoch change does
     * while it commits): the caller's query timeout bounds the whole fenced statement, guard included, and nothing
     * is written.
     */
    @Test
    void guardBlockedOnTheServerIsBoundedByTheQueryTimeout() throws Exception {
        try (Connection c = direct(1); Connection locker = DriverManager.getConnection(raw)) {
            assertEquals(1, write(c, "warmup", 1));
            locker.setAutoCommit(false);
            try (Statement s = locker.createStatement()) {
                s.executeQuery("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "' FOR UPDATE").close();
            }
            long started = System.nanoTime();
            SQLException e;
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(2);
                Future<Integer> written = threads.submit(
                        () -> s.executeUpdate("INSERT INTO " + log + " (writer, token) VALUES ('hung', 1)"));
                e = failure(written);
            } finally {
                locker.rollback();
            }
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertTrue(tookMs < 10_000, "bounded by the 2 s query timeout, took " + tookMs + " ms");
            assertFalse(e instanceof FencingRefusedException, e::toString);
        }
        assertEquals(0, rows("hung"));
    }

    /**
     * A caller's transaction starts while the epoch row is locked by another session (as an epoch change holds it
     * while it commits): the admission's locking read of the epoch row, sent before the transaction's first statement,
     * is bounded by that statement's query timeout as the guard's statements are (before this fix it waited for the
     * server's lock wait: for ever on PostgreSQL, {@code innodb_lock_wait_timeout} on MariaDB). The caller gets the
     * server's own timeout error, nothing is written, and after a rollback the connection writes again.
     */
    @Test
    void admissionBlockedOnTheServerIsBoundedByTheQueryTimeout_C10() throws Exception {
        try (Connection c = proxied(1); Connection locker = DriverManager.getConnection(raw)) {
            assertEquals(1, write(c, "warmup", 1));
            c.setAutoCommit(false);
            locker.setAutoCommit(false);
            try (Statement s = locker.createStatement()) {
                s.executeQuery("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "' FOR UPDATE").close();
            }
            long started = System.nanoTime();
            SQLException e;
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(2);
                Future<Integer> written = threads.submit(
                        () -> s.executeUpdate("INSERT INTO " + log + " (writer, token) VALUES ('hung', 1)"));
                e = failure(written);
            } finally {
                locker.rollback();
            }
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertTrue(tookMs < 10_000, "bounded by the 2 s query timeout, took " + tookMs + " ms");
            assertFalse(e instanceof FencingRefusedException, e::toString);
            assertEquals(database() == TestDatabase.POSTGRESQL ? "57014" : "70100", e.getSQLState(), e::toString);
            c.rollback();
            assertEquals(1, write(c, "after", 1));
            c.commit();
        }
        assertEquals(0, rows("hung"));
        assertEquals(1, rows("after"));
    }

    // ---------------------------------------------------------------- 3. a partition longer than the lease

    /**
     * Owner A holds the lease at token tA and writes; its connection is partitioned (bytes held, nothing closed),
     * and a write it sends meanwhile waits in the network. The lease runs out, owner B acquires tB and writes. The
     * partition heals: A's delayed write, A's next write on the same connection and a fresh connection at tA are
     * all refused as stale (ZF002), and the database holds A's one write from before the partition and B's.
     */
    @Test
    void ownerPartitionedLongerThanItsLeaseIsRefusedWhenItComesBack_C2_C4() throws Exception {
        try (TokenIssuer issuer = issuer(raw)) {
            Lease a = issuer.acquire(resource, "A", Duration.ofMillis(800));
            try (Connection ca = proxied(a.token())) {
                assertEquals(1, write(ca, "A", a.token()));
                FaultProxy.Link link = proxy.last();
                link.hold();
                Future<Integer> delayed = threads.submit(() -> write(ca, "A", a.token()));
                Thread.sleep(1200); // longer than A's lease
                Lease b = issuer.acquire(resource, "B", Duration.ofSeconds(30));
                assertTrue(b.token() > a.token());
                try (Connection cb = direct(b.token())) {
                    assertEquals(1, write(cb, "B", b.token()));
                }
                link.heal();
                SQLException e = failure(delayed);
                assertEquals(FencingSqlState.STALE_TOKEN, e.getSQLState(), e::toString);
                SQLException next = assertThrows(SQLException.class, () -> write(ca, "A", a.token()));
                assertEquals(FencingSqlState.STALE_TOKEN, next.getSQLState(), next::toString);
                try (Connection fresh = direct(a.token())) {
                    SQLException again = assertThrows(SQLException.class, () -> write(fresh, "A", a.token()));
                    assertEquals(FencingSqlState.STALE_TOKEN, again.getSQLState(), again::toString);
                }
                assertEquals(b.token(), mark());
            }
        }
        assertEquals(1, rows("A"), "only A's write from before the partition");
        assertEquals(1, rows("B"));
    }

    // ---------------------------------------------------------------- 4. the issuer's renew under the same faults

    /**
     * A renew whose extension was recorded but whose answer is lost: the renew fails (08xxx), it never reports a
     * renewal; the database's expiry is the one it recorded; the issuer's next renew works on a new connection.
     */
    @Test
    void renewWhoseAnswerIsLostReportsNoRenewal_C7() throws Exception {
        try (TokenIssuer issuer = issuer(proxy.url(raw) + separator() + socketTimeout(1500))) {
            Lease held = issuer.acquire(resource, "A", Duration.ofSeconds(5));
            long before = expiryMillis();
            FaultProxy.Link link = proxy.last();
            link.blackholeAfterRequestContaining(leaseTableName());
            SQLException e = assertThrows(SQLException.class, () -> issuer.renew(held, Duration.ofSeconds(60)));
            assertUnknownOutcome(e);
            assertTrue(link.awaitBlackholed(0), "the extension reached the server");
            assertTrue(expiryMillis() > before + 30_000, "the server recorded the extension the caller never saw");
            link.reset();
            Lease renewed = issuer.renew(held, Duration.ofSeconds(60));
            assertEquals(held.token(), renewed.token());
        }
    }

    /**
     * A renew that hangs (nothing reaches the server) fails within the socket timeout and the database's expiry is
     * unchanged; once the lease ran out and another owner acquired, the old holder's renew is refused as lost.
     */
    @Test
    void renewThatHangsReportsNoRenewalAndALostLeaseStaysLost_C7() throws Exception {
        try (TokenIssuer issuer = issuer(proxy.url(raw) + separator() + socketTimeout(1000));
             TokenIssuer other = issuer(raw)) {
            Lease held = issuer.acquire(resource, "A", Duration.ofMillis(1500));
            long before = expiryMillis();
            FaultProxy.Link link = proxy.last();
            link.hold();
            SQLException e = assertThrows(SQLException.class, () -> issuer.renew(held, Duration.ofSeconds(60)));
            assertUnknownOutcome(e);
            assertEquals(before, expiryMillis(), "nothing recorded");
            link.reset();
            Thread.sleep(800); // A's lease is over
            Lease b = other.acquire(resource, "B", Duration.ofSeconds(30));
            assertTrue(b.token() > held.token());
            assertThrows(LeaseLostException.class, () -> issuer.renew(held, Duration.ofSeconds(60)));
            assertEquals("B", holder());
        }
    }

    private String separator() {
        return raw.indexOf('?') < 0 ? "?" : "&";
    }

    /** The lease table's own name as it appears in the issuer's SQL (no schema). */
    String leaseTableName() {
        return lease.substring(lease.lastIndexOf('.') + 1);
    }

    /** The lease's expiry as the server has it. */
    long expiryMillis() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw);
             PreparedStatement ps = c.prepareStatement("SELECT expires_at FROM " + lease + " WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getTimestamp(1).getTime();
            }
        }
    }

    String holder() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw);
             PreparedStatement ps = c.prepareStatement("SELECT holder FROM " + lease + " WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getString(1);
            }
        }
    }
}
