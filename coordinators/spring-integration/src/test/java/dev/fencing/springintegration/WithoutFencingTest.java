package dev.fencing.springintegration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The problem the module removes (spring-integration#8687), shown with Spring Integration alone: two nodes of
 * {@code JdbcLockRegistry} over {@code DefaultLockRepository} on PostgreSQL, A paused past its time to live, B takes
 * the lock and writes, and A's late write is committed too. Only A's unlock notices, after the fact.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WithoutFencingTest {
    private static Pg db;
    private static PGSimpleDataSource raw;

    @BeforeAll
    static void database() throws SQLException {
        db = Pg.create();
        raw = new PGSimpleDataSource();
        raw.setURL(db.url());
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL,"
                    + " CLIENT_ID CHAR(36), CREATED_DATE TIMESTAMP NOT NULL, EXPIRED_AFTER TIMESTAMP NOT NULL,"
                    + " CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))");
        }
    }

    @AfterAll
    static void drop() throws SQLException {
        if (db != null) {
            db.close();
        }
    }

    private static JdbcLockRegistry node(Duration ttl) {
        DefaultLockRepository repository = new DefaultLockRepository(raw);
        repository.setTransactionManager(new DataSourceTransactionManager(raw));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository, ttl);
        registry.setIdleBetweenTries(Duration.ofMillis(20));
        return registry;
    }

    private static void placeOrder(String item) throws SQLException {
        try (Connection c = raw.getConnection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO orders (item) VALUES (?)")) {
            insert.setString(1, item);
            insert.executeUpdate();
        }
    }

    @Test
    void bothOwnersWriteWhenTheFirstOverranItsLock() throws Exception {
        JdbcLockRegistry a = node(Duration.ofSeconds(1));
        JdbcLockRegistry b = node(Duration.ofSeconds(10));
        CountDownLatch aPaused = new CountDownLatch(1);
        CountDownLatch aWakes = new CountDownLatch(1);
        CompletableFuture<Throwable> aUnlock = new CompletableFuture<>();
        Thread ownerA = new Thread(() -> {
            Lock lock = a.obtain("orders");
            lock.lock();
            try {
                aPaused.countDown();
                aWakes.await(30, TimeUnit.SECONDS);
                placeOrder("A late");                  // nothing stops it
            } catch (Exception e) {
                aUnlock.complete(e);
            }
            try {
                lock.unlock();
                aUnlock.complete(null);
            } catch (RuntimeException e) {
                aUnlock.complete(e);
            }
        }, "owner-A");
        ownerA.start();
        assertTrue(aPaused.await(20, TimeUnit.SECONDS));
        Lock lock = b.obtain("orders");
        lock.lock();                                   // once A's row expired
        try {
            placeOrder("B");
            aWakes.countDown();
            ownerA.join(20_000);
        } finally {
            lock.unlock();
        }
        assertInstanceOf(ConcurrentModificationException.class, aUnlock.get(10, TimeUnit.SECONDS),
                "A learns it had lost the lock only at unlock, after its write");
        assertEquals(List.of("B", "A late"), db.items(), "both owners wrote");
    }
}
