package dev.fencing.springintegration;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.jdbc.FencingSqlState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two owners of one {@link FencedLockRegistry} lock on the machine's PostgreSQL, as two processes (a registry and an
 * issuer each): the first pauses past its time to live, the second takes the lock and writes, the first's late
 * write is refused by the database (SPEC C2, C4). Everything lives in a schema of the test's own, dropped at the end.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FencedLockRegistryTest {
    private static Pg db;
    private static FencingDataSource dataSource;

    @BeforeAll
    static void database() throws SQLException {
        db = Pg.create();
        dataSource = new FencingDataSource();
        dataSource.setUrl(db.fencingUrl());
    }

    @AfterAll
    static void drop() throws SQLException {
        if (db != null) {
            db.close();
        }
    }

    @Test
    void anOwnerPausedPastItsTimeToLiveIsRefusedOnceTheNextOwnerWrote() throws Exception {
        CountDownLatch aPaused = new CountDownLatch(1);
        CountDownLatch aWakes = new CountDownLatch(1);
        CompletableFuture<Long> aToken = new CompletableFuture<>();
        CompletableFuture<Throwable> aOutcome = new CompletableFuture<>();
        // A's data source: the pause (a GC pause, a suspended VM) while it holds the lock, before it writes.
        DataSource paused = new Pausing(dataSource, () -> {
            aToken.complete(Fencing.current().token());
            aPaused.countDown();
            await(aWakes);
        });
        try (FencedLockRegistry a = SpringIntegrationExample.registry(db.fencingUrl(), Duration.ofSeconds(1));
             FencedLockRegistry b = SpringIntegrationExample.registry(db.fencingUrl(), Duration.ofSeconds(10))) {
            a.setIdleBetweenTries(Duration.ofMillis(20));
            b.setIdleBetweenTries(Duration.ofMillis(20));
            Thread ownerA = new Thread(() -> {
                try {
                    SpringIntegrationExample.placeOrder(a, paused, "from A");
                    aOutcome.complete(null);
                } catch (Throwable t) {
                    aOutcome.complete(t);
                }
            }, "owner-A");
            ownerA.start();
            assertTrue(aPaused.await(20, TimeUnit.SECONDS), "A holds the lock and pauses");

            long waited = System.nanoTime();
            SpringIntegrationExample.placeOrder(b, dataSource, "from B");     // blocks until A's lease expired
            long bWaitedMillis = (System.nanoTime() - waited) / 1_000_000;
            long bToken = lastToken(b);

            aWakes.countDown();
            Throwable refused = aOutcome.get(20, TimeUnit.SECONDS);
            SQLException sql = assertInstanceOf(SQLException.class, refused, String.valueOf(refused));
            assertEquals(FencingSqlState.STALE_TOKEN, sql.getSQLState(), sql.getMessage());
            // JdbcLockRegistry's own report that the lease was lost, kept beside the refusal, not instead of it
            assertEquals(1, sql.getSuppressed().length, "the unlock's failure is suppressed: " + sql);
            assertInstanceOf(ConcurrentModificationException.class, sql.getSuppressed()[0]);
            ownerA.join(5_000);

            assertTrue(bToken > aToken.get(), "B's token " + bToken + " > A's " + aToken.get());
            assertTrue(bWaitedMillis >= 500, "B waited for A's lease to expire (" + bWaitedMillis + " ms)");
            assertEquals(List.of("from B"), db.items(), "only B's order was written");
        }
    }

    @Test
    void everyNewHolderGetsAGreaterTokenAndReentryKeepsIt() throws Exception {
        try (FencedLockRegistry registry = SpringIntegrationExample.registry(db.fencingUrl(), Duration.ofSeconds(10))) {
            FencedLock lock = registry.obtain("orders-tokens");
            long first;
            try (FencedLock.Locked locked = lock.locked()) {
                first = locked.lease().token();
                assertEquals(first, Fencing.current().token());
                assertEquals("orders-tokens", Fencing.current().resource());
                lock.lock();                                   // re-entrant: the same lease, the same token
                try {
                    assertEquals(first, Fencing.current().token());
                    registry.renewLock("orders-tokens");        // renewal keeps the token
                    assertEquals(first, lock.lease().token());
                } finally {
                    lock.unlock();
                }
                assertEquals(first, Fencing.current().token(), "the outer scope is in force again");
            }
            assertNull(Fencing.current(), "no token scope after unlock");
            assertThrows(IllegalMonitorStateException.class, lock::lease);
            assertThrows(IllegalMonitorStateException.class, lock::unlock);
            try (FencedLock.Locked again = lock.locked()) {
                assertTrue(again.lease().token() > first, "a new holder's token " + again.lease().token()
                        + " > " + first);
            }
        }
    }

    /**
     * Two registries (two nodes), two threads each, taking one lock in turn: never two holders at once, and each
     * holder's token greater than the one before it, in the order the lock was held.
     */
    @Test
    void racingHoldersAreExcludedAndTheirTokensRiseInLockOrder() throws Exception {
        try (FencedLockRegistry a = SpringIntegrationExample.registry(db.fencingUrl(), Duration.ofSeconds(10));
             FencedLockRegistry b = SpringIntegrationExample.registry(db.fencingUrl(), Duration.ofSeconds(10))) {
            a.setIdleBetweenTries(Duration.ofMillis(5));
            b.setIdleBetweenTries(Duration.ofMillis(5));
            java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
            List<Long> tokens = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            List<CompletableFuture<Void>> workers = new java.util.ArrayList<>();
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(4);
            for (FencedLockRegistry registry : List.of(a, b, a, b)) {
                workers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 8; i++) {
                        try (FencedLock.Locked locked = registry.obtain("orders-race").locked()) {
                            if (inside.incrementAndGet() != 1) {
                                throw new AssertionError("two holders at once");
                            }
                            tokens.add(Fencing.current().token());
                            Thread.sleep(2);
                            inside.decrementAndGet();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                }, threads));
            }
            try {
                CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(50, TimeUnit.SECONDS);
            } finally {
                threads.shutdownNow();
            }
            assertEquals(32, tokens.size());
            for (int i = 1; i < tokens.size(); i++) {
                assertTrue(tokens.get(i) > tokens.get(i - 1), "tokens in lock order rise: " + tokens);
            }
        }
    }

    @Test
    void aLockHeldElsewhereIsNotTakenAndNoTokenIsInForce() throws Exception {
        try (FencedLockRegistry a = SpringIntegrationExample.registry(db.fencingUrl(), Duration.ofSeconds(10));
             FencedLockRegistry b = SpringIntegrationExample.registry(db.fencingUrl(), Duration.ofSeconds(10))) {
            try (FencedLock.Locked held = a.obtain("orders-busy").locked()) {
                CompletableFuture<Boolean> taken = CompletableFuture.supplyAsync(() -> {
                    boolean got = b.obtain("orders-busy").tryLock();
                    return got || Fencing.current() != null;
                });
                assertFalse(taken.get(10, TimeUnit.SECONDS), "B did not get A's live lock, nor a token");
                assertTrue(held.lease().token() > 0);
            }
        }
    }

    @Test
    void aKeyThatIsNoResourceNameIsRefusedWithTheReason() throws Exception {
        try (FencedLockRegistry registry = SpringIntegrationExample.registry(db.fencingUrl(), Duration.ofSeconds(1))) {
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                    () -> registry.obtain("orders of today"));
            assertTrue(bad.getMessage().contains("position 7"), bad.getMessage());
            assertThrows(IllegalArgumentException.class, () -> registry.obtain(42));
        }
    }

    @Test
    void aWriteAfterUnlockHasNoToken() throws Exception {
        try (FencedLockRegistry registry = SpringIntegrationExample.registry(db.fencingUrl(), Duration.ofSeconds(10))) {
            SpringIntegrationExample.placeOrder(registry, dataSource, "locked");
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                SQLException none = assertThrows(SQLException.class,
                        () -> s.executeUpdate("INSERT INTO orders (item) VALUES ('unlocked')"));
                assertEquals(FencingSqlState.INVALID_TOKEN, none.getSQLState(), none.getMessage());
            }
            assertTrue(db.items().contains("locked"));
            assertFalse(db.items().contains("unlocked"));
        }
    }

    /** The token {@code registry} last held for "orders": its lease, read while holding the lock again. */
    private static long lastToken(FencedLockRegistry registry) throws SQLException {
        try (dev.fencing.jdbc.issuer.TokenIssuer issuer = dev.fencing.jdbc.issuer.TokenIssuer.forUrl(db.fencingUrl(),
                new java.util.Properties())) {
            return issuer.status().stream().filter(s -> s.resource().equals("orders")).findFirst().orElseThrow()
                    .issued();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
