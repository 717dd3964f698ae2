package dev.fencing.jdbc;

import dev.fencing.jdbc.issuer.Lease;
import dev.fencing.jdbc.issuer.TokenIssuer;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link NetworkFaultTest} on the PostgreSQL server through pgjdbc, and the session fence ({@code fencing.guard=session})
 * under the same faults: a registration that hangs or whose commit answer is lost, and a registered session
 * partitioned from its client when a newer owner changes the epoch.
 */
@RequiresPostgres
class PostgresNetworkFaultTest extends NetworkFaultTest {
    /** The text of the registration's own row insert (SessionFenceSql#register), as pgjdbc sends it. */
    private static final String REGISTRATION = "pg_catalog.pg_backend_pid(), a.backend_start";

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    String[] tables(String name) throws SQLException {
        TestDatabase.exec(TestDatabase.POSTGRESQL.rawUrl(), "CREATE SCHEMA " + name);
        return new String[] {name + ".fence", name + ".lease"};
    }

    @Override
    String socketTimeout(long millis) {
        return "socketTimeout=" + Math.max(1, millis / 1000);
    }

    @Override
    String[] textInEveryRequest() {
        // pgjdbc sends a statement used five times by name only; with 0 every request carries its text
        return new String[] {"prepareThreshold=0"};
    }

    @Override
    String autoCommitWriteCommits() {
        return "'lost'"; // the guard ahead of the write, one request, one transaction
    }

    private Connection session(long token, boolean proxied) throws SQLException {
        return proxied ? proxied(token, "fencing.guard=session", "ApplicationName=" + name)
                : direct(token, "fencing.guard=session");
    }

    /** Live registrations of the resource at {@code token}, as the server has them (rows of ended sessions too). */
    private long registrations(long token) throws SQLException {
        return query("SELECT count(*) FROM " + epoch + "_session WHERE resource = '" + resource + "' AND pid <> 0"
                + " AND token = " + token);
    }

    /** Server sessions of the proxied connections (their application name is the test's). */
    private long proxiedBackends() throws SQLException {
        return query("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + name + "'");
    }

    private void awaitNoProxiedBackend() throws Exception {
        long deadline = System.currentTimeMillis() + PATIENCE_MS;
        while (proxiedBackends() > 0) {
            if (System.currentTimeMillis() > deadline) {
                fail("the proxied session is still on the server");
            }
            Thread.sleep(20);
        }
    }

    /**
     * The server stops answering in the middle of a registration (its row insert reached the server, no answer
     * comes back): the caller's network timeout ends the wait (08xxx); the server ends the session when the
     * connection goes, its registration transaction rolls back, and a newer owner's epoch change goes through.
     */
    @Test
    void registrationThatHangsIsBoundedAndLeavesNothingRegistered_C4() throws Exception {
        try (Connection first = session(1, false)) {
            assertEquals(1, write(first, "setup", 1)); // the mark is 1 now, so the next session registers
        }
        assertEquals(0, registrations(1));
        try (Connection c = session(1, true)) {
            c.setNetworkTimeout(threads, 1500);
            FaultProxy.Link link = proxy.last();
            link.blackholeAfterRequestContaining(REGISTRATION);
            long started = System.nanoTime();
            assertUnknownOutcome(assertThrows(SQLException.class, () -> write(c, "hung", 1)));
            assertTrue(link.awaitBlackholed(0), "the registration reached the server");
            assertTrue((System.nanoTime() - started) / 1_000_000 < 10_000, "bounded by the network timeout");
            link.reset();
        }
        awaitNoProxiedBackend();
        assertEquals(0, registrations(1), "nothing half-registered");
        assertEquals(0, rows("hung"));
        try (Connection b = session(2, false)) {
            assertEquals(1, write(b, "B", 2));
        }
        assertEquals(2, mark());
    }

    /**
     * A registration hangs on the server (the epoch row is locked by another session): the registration gives up
     * within its own lock wait, the statement guard then waits under the caller's query timeout, which cancels it
     * (57014). The session stays, unregistered and read-only, as the server has it; once the lock is gone it
     * registers and writes.
     */
    @Test
    void registrationBlockedOnTheServerIsBoundedByTheQueryTimeoutAndLeavesTheSessionReadOnly() throws Exception {
        try (Connection first = session(1, false)) {
            assertEquals(1, write(first, "setup", 1));
        }
        try (Connection c = session(1, false); Connection locker = java.sql.DriverManager.getConnection(raw)) {
            locker.setAutoCommit(false);
            try (Statement s = locker.createStatement()) {
                s.executeQuery("SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "' FOR UPDATE").close();
            }
            SQLException e;
            long started = System.nanoTime();
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(2);
                e = assertThrows(SQLException.class,
                        () -> s.executeUpdate("INSERT INTO " + log + " (writer, token) VALUES ('hung', 1)"));
            }
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertEquals("57014", e.getSQLState(), e::toString);
            assertTrue(tookMs < 10_000, "bounded by the query timeout, took " + tookMs + " ms");
            assertEquals(0, registrations(1), "nothing half-registered");
            try (Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(
                    "SELECT current_setting('default_transaction_read_only'), current_setting('transaction_read_only')")) {
                assertTrue(rs.next());
                assertEquals("on", rs.getString(1), "the session stays read-only by default");
                assertEquals("on", rs.getString(2));
            }
            locker.rollback();
            Thread.sleep(300); // a failed registration is tried again at an idle point at least 100 ms later
            assertEquals(1, write(c, "after", 1));
            assertEquals(1, registrations(1));
        }
        assertEquals(0, rows("hung"));
        assertEquals(1, rows("after"));
    }

    /**
     * The registration's {@code COMMIT} reaches the server, its answer does not: the caller gets the commit's own
     * 08xxx (outcome unknown), the session ends with its connection, and the row it left behind names a session
     * that is gone: the next owner's epoch change removes it and goes through.
     */
    @Test
    void registrationWhoseCommitAnswerIsLostLeavesNoLiveRegistration_C4() throws Exception {
        try (Connection first = session(1, false)) {
            assertEquals(1, write(first, "setup", 1));
        }
        try (Connection c = session(1, true)) {
            FaultProxy.Link link = proxy.last();
            // the COMMIT itself, its text ended by pgjdbc's NUL (not the registration's "READ COMMITTED")
            link.blackholeAfterRequestContaining("COMMIT\u0000");
            Future<Integer> written = threads.submit(() -> write(c, "lost", 1));
            assertTrue(link.awaitBlackholed(PATIENCE_MS));
            long deadline = System.currentTimeMillis() + PATIENCE_MS;
            while (registrations(1) == 0 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, registrations(1), "the registration committed on the server");
            link.reset();
            assertUnknownOutcome(failure(written));
        }
        awaitNoProxiedBackend();
        assertEquals(0, rows("lost"), "the write itself was never sent");
        long started = System.nanoTime();
        try (Connection b = session(2, false)) {
            assertEquals(1, write(b, "B", 2));
        }
        assertTrue((System.nanoTime() - started) / 1_000_000 < 5_000, "no wait for the ended session");
        assertEquals(0, registrations(1));
        assertEquals(2, mark());
    }

    /**
     * A registered session partitioned from its client (bytes held, nothing closed) while its lease runs out and
     * owner B's first write changes the epoch: the server ends A's session at B's epoch change even though its
     * client cannot hear (the backend exits; what it says goes into the network), so B's write does not wait for the
     * partition. When the partition heals, A's write that waited in the network is not served, its connection is
     * gone, a fresh connection at A's token is refused as stale (ZF002), and the database holds only A's writes from
     * before the partition and B's.
     */
    @Test
    void partitionedRegisteredSessionIsEndedAtTheEpochChange_C4() throws Exception {
        try (TokenIssuer issuer = issuer(raw)) {
            Lease a = issuer.acquire(resource, "A", Duration.ofMillis(800));
            try (Connection ca = session(a.token(), true)) {
                assertEquals(1, write(ca, "A", a.token())); // advances the mark
                assertEquals(1, write(ca, "A", a.token())); // registers
                assertEquals(1, registrations(a.token()));
                assertEquals(1, proxiedBackends());
                FaultProxy.Link link = proxy.last();
                link.hold();
                Future<Integer> delayed = threads.submit(() -> write(ca, "A", a.token()));
                Thread.sleep(1200); // longer than A's lease
                Lease b = issuer.acquire(resource, "B", Duration.ofSeconds(30));
                long started = System.nanoTime();
                try (Connection cb = session(b.token(), false)) {
                    assertEquals(1, write(cb, "B", b.token()));
                }
                long tookMs = (System.nanoTime() - started) / 1_000_000;
                assertTrue(tookMs < 5_000, "the partitioned session ended without waiting for it: " + tookMs + " ms");
                assertEquals(0, proxiedBackends(), "A's server session is gone");
                assertEquals(0, registrations(a.token()));
                link.heal();
                SQLException e = failure(delayed);
                assertNotNull(e.getSQLState());
                assertEquals("57P01", e.getSQLState(), e::toString); // the backend's last words, held in the network
                SQLException next = assertThrows(SQLException.class, () -> write(ca, "A", a.token()));
                assertTrue(next.getSQLState().startsWith("08"), next::toString);
                try (Connection fresh = session(a.token(), false)) {
                    SQLException again = assertThrows(SQLException.class, () -> write(fresh, "A", a.token()));
                    assertEquals(FencingSqlState.STALE_TOKEN, again.getSQLState(), again::toString);
                }
                assertEquals(b.token(), mark());
            }
        }
        assertEquals(2, rows("A"), "only A's writes from before the partition");
        assertEquals(1, rows("B"));
        assertFalse(proxiedBackends() > 0);
    }
}
