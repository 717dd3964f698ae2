package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code fencing.schema=create} on many connections at once, each for an epoch table of its own in one schema: the
 * protection function they share is replaced by all of them at the same moment, which PostgreSQL fails for some
 * with "tuple concurrently updated"; each connection still opens with its table protected (found by a CI run beside
 * other test runs). Real threads, real server; the schema is the test's own.
 */
@RequiresPostgres
class PostgresSchemaCreateRaceTest {
    private final String raw = TestDatabase.POSTGRESQL.rawUrl();
    private final String schema = TestDatabase.unique("race");

    @BeforeEach
    void createSchema() throws SQLException {
        TestDatabase.exec(raw, "CREATE SCHEMA " + schema);
    }

    @AfterEach
    void dropSchema() throws SQLException {
        TestDatabase.exec(raw, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    @Test
    void connectionsCreatingTheProtectionAtOnceAllOpen_C9() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 3; round++) {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<String>> opened = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    String url = TestDatabase.fenced(raw, "fencing.table=" + schema + ".epoch_" + round + "_" + i,
                            "fencing.schema=create", "fencing.guard=" + (i % 2 == 0 ? "statement" : "session"));
                    opened.add(pool.submit(() -> {
                        start.await();
                        try (Connection c = DriverManager.getConnection(url)) {
                            return c.isValid(5) ? "open" : "invalid";
                        } catch (SQLException e) {
                            return e.getSQLState() + " " + e.getMessage().lines().findFirst().orElse("");
                        }
                    }));
                }
                start.countDown();
                for (Future<String> each : opened) {
                    assertEquals("open", each.get(60, TimeUnit.SECONDS));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
