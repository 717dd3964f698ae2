package dev.fencing.etcd;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.jdbc.FencingSqlState;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lock.LockResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two owners of one etcd lock through a real etcd server (a child process of the test), an H2 database as judge:
 * the first pauses past its lease and the second takes over; etcd restarted between two owners; no token without
 * the lock.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdFencingTest {
    private static EtcdServer etcd;

    @BeforeAll
    static void start() throws Exception {
        etcd = EtcdServer.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (etcd != null) {
            etcd.close();
        }
    }

    private static Client client() {
        return Client.builder().endpoints(etcd.endpoint()).build();
    }

    private static FencingDataSource dataSource(Db db) {
        FencingDataSource ds = new FencingDataSource();
        ds.setUrl(db.fencingUrl(";fencing.resource=orders"));
        return ds;
    }

    @Test
    void anOwnerPausedPastItsLeaseIsRefusedOnceTheNextOwnerWrote() throws Exception {
        Db db = new Db();
        CountDownLatch aPaused = new CountDownLatch(1);
        CountDownLatch aWakes = new CountDownLatch(1);
        CompletableFuture<Long> aToken = new CompletableFuture<>();
        CompletableFuture<Throwable> aOutcome = new CompletableFuture<>();
        DataSource paused = new Pausing(dataSource(db), () -> {   // A's pause: after its token, before its write
            aToken.complete(Fencing.current().token());
            aPaused.countDown();
            try {
                aWakes.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (Client a = client(); Client b = client()) {
            long aLease = a.getLeaseClient().grant(2).get().getID();      // 2 s, never kept alive: it runs out
            long bLease = b.getLeaseClient().grant(30).get().getID();
            Thread ownerA = new Thread(() -> {
                try {
                    EtcdExample.placeOrder(a, aLease, paused, "A");
                    aOutcome.complete(null);
                } catch (Throwable t) {
                    aOutcome.complete(t);
                }
            }, "owner-A");
            ownerA.start();
            assertTrue(aPaused.await(30, TimeUnit.SECONDS), "A holds the lock and pauses");

            EtcdExample.placeOrder(b, bLease, dataSource(db), "B");       // waits until A's lease ran out
            long bToken = db.mark("orders");
            aWakes.countDown();
            Throwable refused = aOutcome.get(30, TimeUnit.SECONDS);
            SQLException sql = assertInstanceOf(SQLException.class, refused, String.valueOf(refused));
            assertEquals(FencingSqlState.STALE_TOKEN, sql.getSQLState(), sql.getMessage());
            ownerA.join(5_000);
            assertTrue(bToken > aToken.get(), "B's token " + bToken + " > A's " + aToken.get());
            assertEquals(List.of("B"), db.rows(), "only B wrote");
        } finally {
            db.close();
        }
    }

    @Test
    void etcdRestartedBetweenTwoOwnersKeepsTheRevisionGrowing() throws Exception {
        Db db = new Db();
        ByteSequence name = ByteSequence.from("locks/restart", UTF_8);
        EtcdLease aHeld;
        try (Client a = client()) {
            long aLease = a.getLeaseClient().grant(2).get().getID();
            LockResponse locked = a.getLockClient().lock(name, aLease).get();
            aHeld = EtcdFencing.lease(a, locked, aLease, "orders");
            try (Fencing.Scope scope = aHeld.scope()) {
                db.write("A");
            }
        }
        etcd.restart();                 // the whole cluster (one member) stops and starts again on its data
        long bToken;
        try (Client b = client()) {
            long bLease = b.getLeaseClient().grant(30).get().getID();
            LockResponse locked = b.getLockClient().lock(name, bLease).get(60, TimeUnit.SECONDS);
            EtcdLease bHeld = EtcdFencing.lease(b, locked, bLease, "orders");
            bToken = bHeld.token();
            try (Fencing.Scope scope = bHeld.scope()) {
                db.write("B");
            }
            b.getLockClient().unlock(locked.getKey()).get();
        }
        assertTrue(bToken > aHeld.token(), "after the restart B's token " + bToken + " > A's " + aHeld.token());
        try (Fencing.Scope late = aHeld.scope()) {     // A, paused across the restart, writes late
            SQLException refused = assertThrows(SQLException.class, () -> db.write("A late"));
            assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState(), refused.getMessage());
        }
        assertEquals(List.of("A", "B"), db.rows());
        db.close();
    }

    /**
     * What breaks the token: a cluster whose revision went back (rebuilt empty here; restored from an older snapshot
     * without --bump-revision likewise). Its holders' tokens are below the database's mark: refused, nothing written.
     */
    @Test
    void aClusterRebuiltEmptyHandsOutTokensBelowTheMarkWhichAreRefused() throws Exception {
        Db db = new Db();
        try {
            try (Client a = client()) {
                for (int i = 0; i < 20; i++) {                   // the first cluster's revision moves on
                    a.getKVClient().put(ByteSequence.from("fencing-test/filler", UTF_8),
                            ByteSequence.from(Integer.toString(i), UTF_8)).get();
                }
                long lease = a.getLeaseClient().grant(30).get().getID();
                LockResponse locked = a.getLockClient().lock(ByteSequence.from("locks/rebuilt", UTF_8), lease).get();
                try (Fencing.Scope scope = EtcdFencing.scope(a, locked, lease, "orders")) {
                    db.write("old cluster");
                }
            }
            long mark = db.mark("orders");
            try (EtcdServer rebuilt = EtcdServer.start();
                 Client b = Client.builder().endpoints(rebuilt.endpoint()).build()) {
                long lease = b.getLeaseClient().grant(30).get().getID();
                LockResponse locked = b.getLockClient().lock(ByteSequence.from("locks/rebuilt", UTF_8), lease).get();
                EtcdLease held = EtcdFencing.lease(b, locked, lease, "orders");
                assertTrue(held.token() < mark, "the rebuilt cluster's token " + held.token() + " < mark " + mark);
                try (Fencing.Scope scope = held.scope()) {
                    SQLException refused = assertThrows(SQLException.class, () -> db.write("new cluster"));
                    assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState(), refused.getMessage());
                }
            }
            assertEquals(List.of("old cluster"), db.rows());
        } finally {
            db.close();
        }
    }

    @Test
    void noTokenWithoutTheLock() throws Exception {
        try (Client a = client()) {
            long lease = a.getLeaseClient().grant(30).get().getID();
            LockResponse locked = a.getLockClient().lock(ByteSequence.from("locks/none", UTF_8), lease).get();
            EtcdLease held = EtcdFencing.lease(a, locked, lease, "orders");
            assertTrue(held.token() > 0 && held.token() <= held.readRevision(), held.toString());
            LockResponse again = a.getLockClient().lock(ByteSequence.from("locks/none", UTF_8), lease)
                    .get(10, TimeUnit.SECONDS);                    // the same lease again: its own key, its token
            assertEquals(held.token(), EtcdFencing.lease(a, again, lease, "orders").token());
            long other = a.getLeaseClient().grant(30).get().getID();
            assertThrows(LockLostException.class, () -> EtcdFencing.lease(a, locked, other, "orders"),
                    "the key is not attached to another lease");
            a.getLeaseClient().revoke(lease).get();      // the lease ends: etcd deletes the lock key
            LockLostException lost = assertThrows(LockLostException.class,
                    () -> EtcdFencing.lease(a, locked, lease, "orders"));
            assertTrue(lost.getMessage().contains("is gone"), lost.getMessage());
        }
    }

    /** A data source that runs {@code pause} before handing out each connection. */
    private record Pausing(DataSource target, Runnable pause) implements DataSource {
        @Override
        public Connection getConnection() throws SQLException {
            pause.run();
            return target.getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            pause.run();
            return target.getConnection(user, password);
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return target.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            target.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            target.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return target.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return target.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            return target.unwrap(iface);
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) throws SQLException {
            return target.isWrapperFor(iface);
        }
    }
}
