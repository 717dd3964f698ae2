package dev.fencing.curator;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.HeldTokens;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two owners through a real in-process ZooKeeper, the database as judge: the first owner pauses past its session,
 * the second takes over and writes, the first's late write is refused (SPEC C2, C4).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CuratorFencingTest {
    private static TestingServer server;
    /** The owners' threads (not the common pool, which may have one thread on a small machine). */
    private static final ExecutorService OWNERS = Executors.newFixedThreadPool(2);
    private Db db;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        server.close();
        OWNERS.shutdownNow();
    }

    @BeforeEach
    void database() throws SQLException {
        db = new Db();
    }

    @AfterEach
    void dropDatabase() throws SQLException {
        db.close();
    }

    /** C2, C4: owner A's session expires while A is paused holding the lock; B takes over; A's late write fails. */
    @Test
    void ownerPausedPastItsSessionIsRefusedAfterTheNextOwnerWrote() throws Exception {
        String lockPath = "/fencing-test/orders-" + db.name;
        try (CuratorFramework clientA = Zk.client(server.getConnectString());
             CuratorFramework clientB = Zk.client(server.getConnectString())) {
            InterProcessMutex mutexA = new InterProcessMutex(clientA, lockPath);
            InterProcessMutex mutexB = new InterProcessMutex(clientB, lockPath);
            CountDownLatch aHolds = new CountDownLatch(1);
            CountDownLatch aWakes = new CountDownLatch(1);
            AtomicLong tokenA = new AtomicLong();
            AtomicLong tokenB = new AtomicLong();

            CompletableFuture<SQLException> ownerA = CompletableFuture.supplyAsync(() -> {
                try {
                    mutexA.acquire();
                    try (Fencing.Scope scope = CuratorFencing.scope(clientA, mutexA, "orders")) {
                        tokenA.set(scope.token());
                        aHolds.countDown();
                        aWakes.await();                       // the pause: GC, SIGSTOP, a slow disk...
                        db.write("A after its pause");        // must be refused
                        return null;
                    } finally {
                        try {
                            mutexA.release();
                        } catch (Exception lost) {
                            // its node went with its session
                        }
                    }
                } catch (SQLException refused) {
                    return refused;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, OWNERS);
            assertTrue(aHolds.await(20, TimeUnit.SECONDS), "A acquired the lock");

            CompletableFuture<Void> ownerB = CompletableFuture.runAsync(() -> {
                try {
                    mutexB.acquire();                         // blocks while A's lock node exists
                    try (Fencing.Scope scope = CuratorFencing.scope(clientB, mutexB, "orders")) {
                        tokenB.set(scope.token());
                        db.write("B");
                    } finally {
                        mutexB.release();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, OWNERS);
            Thread.sleep(300);
            assertTrue(!ownerB.isDone(), "B waits while A holds the lock");

            Zk.expireOnServer(clientA, server.getConnectString());
            ownerB.get(30, TimeUnit.SECONDS);
            aWakes.countDown();
            SQLException refused = ownerA.get(30, TimeUnit.SECONDS);

            assertTrue(tokenB.get() > tokenA.get(), "B's czxid " + tokenB + " > A's " + tokenA);
            assertTrue(refused != null, "A's late write was refused");
            assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState(), refused.getMessage());
            assertEquals(List.of("B"), db.rows(), "the table has only B's write");
            assertEquals(tokenB.get(), db.mark("orders"));
        }
    }

    /**
     * The coordinator's own failure between two owners: the ensemble's leader is killed, a new leader is elected,
     * the next owner's token carries the new epoch and is greater; the old owner's late write is refused.
     */
    @Test
    void tokenRisesAcrossALeaderElection() throws Exception {
        try (TestingCluster cluster = new TestingCluster(3)) {
            cluster.start();
            String lockPath = "/fencing-test/cluster-" + db.name;
            try (CuratorFramework clientA = Zk.client(cluster.getConnectString());
                 CuratorFramework clientB = Zk.client(cluster.getConnectString())) {
                InterProcessMutex mutexA = new InterProcessMutex(clientA, lockPath);
                mutexA.acquire();
                CuratorLease leaseA = CuratorFencing.lease(clientA, mutexA, "orders");
                try (Fencing.Scope scope = leaseA.scope()) {
                    db.write("A");
                }

                InstanceSpec leader = Zk.leader(cluster);
                assertTrue(cluster.killServer(leader), "killed leader " + leader);
                InstanceSpec newLeader = Zk.leader(cluster);
                assertTrue(!newLeader.equals(leader));

                // A is paused holding the lock; its session expires (on the new leader).
                Zk.expireOnServer(clientA, cluster.getConnectString());
                InterProcessMutex mutexB = new InterProcessMutex(clientB, lockPath);
                assertTrue(mutexB.acquire(30, TimeUnit.SECONDS), "B acquired after A's session expired");
                CuratorLease leaseB = CuratorFencing.lease(clientB, mutexB, "orders");
                try (Fencing.Scope scope = leaseB.scope()) {
                    db.write("B");
                } finally {
                    mutexB.release();
                }

                assertTrue(leaseB.epoch() > leaseA.epoch(), "new leader epoch: " + leaseA + " then " + leaseB);
                assertTrue(leaseB.token() > leaseA.token());
                SQLException refused = assertThrows(SQLException.class, () -> {
                    try (Fencing.Scope scope = leaseA.scope()) {
                        db.write("A after its pause");
                    }
                });
                assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState(), refused.getMessage());
                assertEquals(List.of("A", "B"), db.rows());
            }
        }
    }

    /**
     * Why the sequence suffix is not a token: when Curator's container parent is deleted (the server does it once
     * the parent is empty), the suffix starts at 0 again; the czxid still rises.
     */
    @Test
    void sequenceSuffixRestartsButCzxidRises() throws Exception {
        String lockPath = "/fencing-test/suffix-" + db.name;
        try (CuratorFramework client = Zk.client(server.getConnectString())) {
            InterProcessMutex first = new InterProcessMutex(client, lockPath);
            first.acquire();
            CuratorLease before = CuratorFencing.lease(client, first, "orders");
            first.release();
            client.delete().deletingChildrenIfNeeded().forPath(lockPath);

            InterProcessMutex second = new InterProcessMutex(client, lockPath);
            second.acquire();
            CuratorLease after = CuratorFencing.lease(client, second, "orders");
            second.release();

            assertEquals(suffix(before.lockNode()), suffix(after.lockNode()), before + " / " + after);
            assertTrue(after.token() > before.token(), before + " / " + after);
        }
    }

    /** A token is never read from a lock this thread does not hold, nor from a node of another session. */
    @Test
    void noTokenWithoutTheLock() throws Exception {
        String lockPath = "/fencing-test/none-" + db.name;
        try (CuratorFramework client = Zk.client(server.getConnectString())) {
            InterProcessMutex mutex = new InterProcessMutex(client, lockPath);
            assertThrows(LockLostException.class, () -> CuratorFencing.lease(client, mutex, "orders"));
            mutex.acquire();
            Zk.expireOnServer(client, server.getConnectString());
            // Curator reconnects with a new session; the lock node went with the old one.
            assertThrows(LockLostException.class, () -> {
                for (int i = 0; i < 100; i++) {          // until the client has noticed the expiry
                    CuratorFencing.lease(client, mutex, "orders");
                    Thread.sleep(100);
                }
            });
        }
    }

    /**
     * A leader that writes from many threads: its latch node's czxid is held for the process while it leads
     * (HeldTokens), dropped when it stops leading; the next leader's token is greater and the old leader's late
     * write is refused.
     */
    @Test
    void leaderLatchHoldsItsTokenForTheProcessWhileItLeads() throws Exception {
        String latchPath = "/fencing-test/leader-" + db.name;
        String viaHeld = ";fencing.resource=orders;fencing.token.source=dev.fencing.jdbc.HeldTokens";
        try (CuratorFramework clientA = Zk.client(server.getConnectString());
             CuratorFramework clientB = Zk.client(server.getConnectString());
             LeaderLatch latchA = new LeaderLatch(clientA, latchPath, "A")) {
            LeadershipHold holdA = CuratorFencing.holdWhileLeader(clientA, latchA, "orders");
            latchA.start();
            assertTrue(latchA.await(20, TimeUnit.SECONDS));
            CuratorLease leaseA = waitForLease(holdA);
            CompletableFuture.runAsync(() -> {                 // any thread of the leader's process
                try {
                    db.write("A", viaHeld);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, OWNERS).get(20, TimeUnit.SECONDS);

            try (LeaderLatch latchB = new LeaderLatch(clientB, latchPath, "B");
                 LeadershipHold holdB = CuratorFencing.holdWhileLeader(clientB, latchB, "orders")) {
                latchB.start();
                Zk.expireOnServer(clientA, server.getConnectString());
                assertTrue(latchB.await(30, TimeUnit.SECONDS), "B leads after A's session expired");
                CuratorLease leaseB = waitForLease(holdB);
                assertTrue(leaseB.token() > leaseA.token());
                db.write("B", viaHeld);
                assertEquals(leaseB.token(), HeldTokens.held("orders").orElse(0));

                SQLException refused = assertThrows(SQLException.class, () -> {
                    try (Fencing.Scope scope = leaseA.scope()) {
                        db.write("A after its pause", viaHeld);
                    }
                });
                assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState(), refused.getMessage());
                assertEquals(List.of("A", "B"), db.rows());
            } finally {
                holdA.close();
            }
            assertTrue(HeldTokens.held("orders").isEmpty(), "no token held once both holds are closed");
        }
    }

    private static CuratorLease waitForLease(LeadershipHold hold) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            CuratorLease lease = hold.lease();
            if (lease != null) {
                return lease;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no leader token held");
    }

    private static String suffix(String lockNode) {
        return lockNode.substring(lockNode.length() - 10);
    }
}
