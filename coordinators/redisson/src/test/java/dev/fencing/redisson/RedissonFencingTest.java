package dev.fencing.redisson;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingSqlState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two owners through the machine's Redis with Redisson's RFencedLock, the database as judge: the first pauses past
 * its lease time, the second takes over and writes, the first's late write is refused (SPEC C2, C4); and what a
 * lost Redis counter does, and how the acquisition check and the high-water mark turn it into refusals.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedissonFencingTest {
    private static RedissonClient processA;
    private static RedissonClient processB;
    /** The owners' threads (not the common pool, which may have one thread on a small machine). */
    private static final ExecutorService OWNERS = Executors.newFixedThreadPool(2);

    @BeforeAll
    static void clients() {
        processA = RedisFixture.client();
        processB = RedisFixture.client();
    }

    @AfterAll
    static void shutdown() {
        processA.shutdown();
        processB.shutdown();
        OWNERS.shutdownNow();
    }

    /** C2, C4: A's lease time passes while A is paused; B acquires and writes; A's late write is refused. */
    @Test
    void ownerPausedPastItsLeaseTimeIsRefusedAfterTheNextOwnerWrote() throws Exception {
        String name = RedisFixture.lockName();
        try (RedisFixture.Judge db = new RedisFixture.Judge()) {
            CountDownLatch aHolds = new CountDownLatch(1);
            CountDownLatch aWakes = new CountDownLatch(1);
            AtomicLong tokenA = new AtomicLong();
            CompletableFuture<SQLException> ownerA = CompletableFuture.supplyAsync(() -> {
                try (RedissonLease lease = RedissonFencing.lock(processA.getFencedLock(name), "orders", 1,
                        TimeUnit.SECONDS)) {
                    tokenA.set(lease.token());
                    aHolds.countDown();
                    aWakes.await();                       // the pause, longer than the 1 s lease time
                    db.write("A after its pause");
                    return null;
                } catch (SQLException refused) {
                    return refused;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, OWNERS);
            assertTrue(aHolds.await(20, TimeUnit.SECONDS));
            long started = System.nanoTime();
            long tokenB = CompletableFuture.supplyAsync(() -> {
                try (RedissonLease lease = RedissonFencing.lock(processB.getFencedLock(name), "orders", 10,
                        TimeUnit.SECONDS)) {                  // waits until A's lease time has passed
                    db.write("B");
                    return lease.token();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, OWNERS).get(30, TimeUnit.SECONDS);
            assertTrue(System.nanoTime() - started > TimeUnit.MILLISECONDS.toNanos(500), "B waited for A's lease");
            aWakes.countDown();
            SQLException refused = ownerA.get(30, TimeUnit.SECONDS);

            assertTrue(tokenB > tokenA.get(), tokenB + " > " + tokenA);
            assertNotNull(refused, "A's late write was refused");
            assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState(), refused.getMessage());
            assertEquals(List.of("B"), db.rows(), "the table has only B's write");
            assertEquals(tokenB, db.mark("orders"));
        } finally {
            RedisFixture.deleteKeys(processA, name);
        }
    }

    /**
     * The coordinator's own failure: Redis loses the counter (a restart without persistence, a flush; simulated by
     * deleting the counter key) and hands out 1, 2, ... again. Through Redisson alone, a token below the mark is
     * refused by the database (ZF002), but the token equal to the mark is accepted as the same epoch: a silent
     * reuse. The module's acquisition check refuses every reused token, and a rebase repairs the counter.
     */
    @Test
    void aLostCounterIsRefusedNeverReusedSilently() throws Exception {
        String name = RedisFixture.lockName();
        try (RedisFixture.Judge db = new RedisFixture.Judge()) {
            RFencedLock lock = processA.getFencedLock(name);
            for (String owner : List.of("A", "B")) {
                try (RedissonLease lease = RedissonFencing.lock(lock, "orders", db.fenced())) {
                    db.write(owner);
                }
            }
            long mark = db.mark("orders");
            assertEquals(2, mark, "tokens 1 and 2 were written");
            assertTrue(processA.getBucket(RedissonFencing.counterKey(lock)).isExists(), "the counter key is Redisson's");

            processA.getKeys().delete(RedissonFencing.counterKey(lock));          // Redis lost the counter

            // Redisson alone, no check: token 1 again, below the mark: the database refuses it.
            long reused = lock.lockAndGetToken();
            try (Fencing.Scope scope = Fencing.scope("orders", reused)) {
                assertEquals(1, reused);
                SQLException stale = assertThrows(SQLException.class, () -> db.write("C with reused token 1"));
                assertEquals(FencingSqlState.STALE_TOKEN, stale.getSQLState(), stale.getMessage());
            } finally {
                lock.unlock();
            }
            // ... and token 2 again, equal to the mark: accepted as B's epoch. This is the silent reuse.
            long equal = lock.lockAndGetToken();
            try (Fencing.Scope scope = Fencing.scope("orders", equal)) {
                assertEquals(mark, equal);
                db.write("D with reused token 2, accepted");
            } finally {
                lock.unlock();
            }

            processA.getKeys().delete(RedissonFencing.counterKey(lock));          // lost again
            // With the module's check: every reused token is refused at acquisition, the lock released.
            for (int attempt = 1; attempt <= 2; attempt++) {
                CounterWentBackException wentBack = assertThrows(CounterWentBackException.class,
                        () -> RedissonFencing.lock(lock, "orders", db.fenced()));
                assertEquals(attempt, wentBack.token());
                assertEquals(mark, wentBack.highWaterMark());
                assertFalse(lock.isLocked(), "the lock was released");
            }
            assertEquals(mark + 1000, RedissonFencing.rebase(processA, lock, mark + 1000));
            assertEquals(mark + 1000, RedissonFencing.rebase(processA, lock, 5), "a rebase never lowers");
            try (RedissonLease lease = RedissonFencing.lock(lock, "orders", db.fenced())) {
                assertEquals(mark + 1001, lease.token());
                db.write("E after the rebase");
            }
            assertEquals(List.of("A", "B", "D with reused token 2, accepted", "E after the rebase"), db.rows());
            assertEquals(mark + 1001, db.mark("orders"));
        } finally {
            RedisFixture.deleteKeys(processA, name);
        }
    }

    /** A lease that cannot be used leaves the lock free: bad resource name. */
    @Test
    void aBadResourceNameReleasesTheLock() {
        String name = RedisFixture.lockName();
        try {
            RFencedLock lock = processA.getFencedLock(name);
            assertThrows(IllegalArgumentException.class, () -> RedissonFencing.lock(lock, "not a name"));
            assertFalse(lock.isLocked());
            assertEquals("redisson_lock_token:" + name, RedissonFencing.counterKey(lock));
        } finally {
            RedisFixture.deleteKeys(processA, name);
        }
    }
}
