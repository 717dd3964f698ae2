package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * SPEC C4 with real threads and overlapping transactions, on each database by a subclass: the first writers of a
 * new epoch all succeed together, same-epoch writers share the epoch row's lock, an advance waits for in-flight
 * writers, a lower token waiting behind an advance is refused once it commits, and writers of the old epoch cannot
 * hold an advance off.
 */
abstract class ConcurrencyTest {
    final ExecutorService threads = Executors.newFixedThreadPool(9);
    String raw;
    String table;
    String resource;

    abstract TestDatabase database();

    /** Creates {@code table} (id INT PRIMARY KEY, v INT NOT NULL) holding ids 1 to 8, each with v = 0. */
    abstract void createTable() throws SQLException;

    /** A statement that sleeps 0.2 s on the server, holding the transaction open. */
    abstract String sleep();

    @BeforeEach
    void setUp() throws Exception {
        raw = database().rawUrl();
        table = TestDatabase.unique("conc");
        resource = TestDatabase.unique("res");
        createTable();
        try (Connection c = fenced(5)) {
            write(c, 1, 1);
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        threads.shutdownNow();
        TestDatabase.exec(raw, "DROP TABLE " + table);
    }

    Connection fenced(long token) throws SQLException {
        return TestDatabase.fencedAt(token, raw, "fencing.schema=create", "fencing.resource=" + resource);
    }

    int write(Connection c, int id, int v) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate("UPDATE " + table + " SET v = " + v + " WHERE id = " + id);
        }
    }

    int value(int id) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT v FROM " + table + " WHERE id = " + id)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void concurrentFirstWritersOfANewEpochAllSucceed_C4() throws Exception {
        int writers = 8;
        CyclicBarrier start = new CyclicBarrier(writers);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 1; i <= writers; i++) {
            int id = i;
            results.add(threads.submit(() -> {
                try (Connection c = fenced(6)) {
                    start.await(20, TimeUnit.SECONDS);
                    return write(c, id, 60 + id);
                }
            }));
        }
        for (Future<Integer> result : results) {
            assertEquals(1, result.get(30, TimeUnit.SECONDS));
        }
        for (int id = 1; id <= writers; id++) {
            assertEquals(60 + id, value(id));
        }
    }

    @Test
    void sameTokenWritersWithOverlappingTransactionsNeverWaitForEachOther_C4() throws Exception {
        int writers = 8;
        CyclicBarrier allWrote = new CyclicBarrier(writers);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 1; i <= writers; i++) {
            int id = i;
            results.add(threads.submit(() -> {
                try (Connection c = fenced(5)) {
                    c.setAutoCommit(false);
                    int changed = write(c, id, 50 + id);
                    // every writer holds its guard until all have written: a writer that waited would break this
                    allWrote.await(20, TimeUnit.SECONDS);
                    c.commit();
                    return changed;
                }
            }));
        }
        for (Future<Integer> result : results) {
            assertEquals(1, result.get(30, TimeUnit.SECONDS));
        }
        for (int id = 1; id <= writers; id++) {
            assertEquals(50 + id, value(id));
        }
    }

    @Test
    void aLowerTokenWaitingBehindAnAdvanceIsRefusedOnceItCommits_C4() throws Exception {
        try (Connection advancing = fenced(7)) {
            advancing.setAutoCommit(false);
            assertEquals(1, write(advancing, 2, 70));
            Future<Integer> stale = threads.submit(() -> {
                try (Connection c = fenced(5)) {
                    return write(c, 3, 55);
                }
            });
            assertThrows(TimeoutException.class, () -> stale.get(700, TimeUnit.MILLISECONDS),
                    "the old owner's write waits on the uncommitted advance");
            advancing.commit();
            ExecutionException e = assertThrows(ExecutionException.class, () -> stale.get(20, TimeUnit.SECONDS));
            FencingRefusedException refused = assertInstanceOf(FencingRefusedException.class, e.getCause());
            assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState());
            assertEquals(7, refused.getHighWaterMark());
        }
        assertEquals(0, value(3));
        assertEquals(70, value(2));
    }

    @Test
    void anAdvanceWaitsForInFlightSameEpochWriters_C4() throws Exception {
        try (Connection inFlight = fenced(5)) {
            inFlight.setAutoCommit(false);
            assertEquals(1, write(inFlight, 4, 44));
            Future<Integer> advance = threads.submit(() -> {
                try (Connection c = fenced(6)) {
                    return write(c, 5, 66);
                }
            });
            assertThrows(TimeoutException.class, () -> advance.get(700, TimeUnit.MILLISECONDS),
                    "the advance waits until the in-flight epoch-5 transaction ends");
            assertEquals(1, write(inFlight, 6, 46), "the in-flight owner keeps writing in its epoch");
            inFlight.commit();
            assertEquals(1, advance.get(20, TimeUnit.SECONDS));
        }
        assertEquals(44, value(4));
        assertEquals(46, value(6));
        assertEquals(66, value(5));
        try (Connection late = fenced(5)) {
            FencingRefusedException e = assertThrows(FencingRefusedException.class, () -> write(late, 7, 1));
            assertEquals(FencingSqlState.STALE_TOKEN, e.getSQLState());
        }
        assertFalse(value(7) == 1);
    }

    @Test
    void overlappingWritersOfTheOldEpochCannotHoldAnAdvanceOff_C4() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        List<Future<Integer>> writers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            int id = 2 + w;
            writers.add(threads.submit(() -> {
                int commits = 0;
                try (Connection c = fenced(5); Statement s = c.createStatement()) {
                    while (!stop.get()) {
                        c.setAutoCommit(false);
                        try {
                            s.executeUpdate("UPDATE " + table + " SET v = v + 1 WHERE id = " + id);
                            s.execute(sleep());
                            c.commit();
                            commits++;
                        } catch (SQLException refused) {
                            c.rollback();
                            return commits; // the new epoch has arrived
                        } finally {
                            c.setAutoCommit(true);
                        }
                    }
                }
                return commits;
            }));
            Thread.sleep(70);
        }
        Thread.sleep(500);
        long started = System.nanoTime();
        try (Connection next = fenced(6)) {
            assertEquals(1, write(next, 1, 6));
        } finally {
            stop.set(true);
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        for (Future<Integer> writer : writers) {
            writer.get(30, TimeUnit.SECONDS);
        }
        // Without fair queueing the advance waited 30-57 s behind share locks that kept overlapping.
        assertFalse(millis > 5_000, "the advance waited " + millis + " ms behind writers of the old epoch");
    }
}
