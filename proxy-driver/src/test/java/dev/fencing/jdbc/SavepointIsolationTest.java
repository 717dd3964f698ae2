package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC C3 with two connections: after a savepoint rollback the guard's lock is gone, so a handover may commit in
 * between and the old owner's next write must be guarded again; and under REPEATABLE READ and SERIALIZABLE a
 * snapshot taken before a handover must not let the old owner commit. Where the server keeps un-admitted work
 * read-only (PostgreSQL, MariaDB: SPEC C10), a transaction that starts with a current token is admitted by the
 * epoch-row lock before its first statement, so the handover waits for it instead: the lock taken before the
 * savepoint outlives its rollback, and no snapshot can predate a mark that commits while the transaction runs.
 */
abstract class SavepointIsolationTest {
    private final ExecutorService newOwner = Executors.newSingleThreadExecutor();
    String raw;
    String table;
    String resource;

    abstract TestDatabase database();

    @BeforeEach
    void createData() throws SQLException {
        raw = database().rawUrl();
        table = TestDatabase.unique("txn");
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100), (2, 200)");
        try (Connection c = fenced(5)) {
            update(c, 1, 100);
        }
    }

    @AfterEach
    void dropData() throws SQLException {
        newOwner.shutdownNow();
        TestDatabase.exec(raw, "DROP TABLE " + table);
    }

    Connection fenced(long token) throws SQLException {
        return TestDatabase.fencedAt(token, raw, "fencing.schema=create", "fencing.resource=" + resource);
    }

    int update(Connection c, int id, int balance) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate("UPDATE " + table + " SET balance = " + balance + " WHERE id = " + id);
        }
    }

    /** Whether transactions that start with a token are admitted at their start (SPEC C10): not on H2. */
    boolean admitsTransactions() {
        return database() != TestDatabase.H2;
    }

    /** The new owner, token 6, writes row 2 and commits on its own connection; returns once it has committed. */
    void handOver() throws Exception {
        assertEquals(1, startHandOver().get(20, TimeUnit.SECONDS), "the new owner's write");
    }

    private Future<Integer> startHandOver() {
        return newOwner.submit(() -> {
            try (Connection b = fenced(6)) {
                return update(b, 2, 206);
            }
        });
    }

    /**
     * Where transactions are admitted at their start: the new owner's handover waits while the old owner's admitted
     * transaction {@code a} is open; the old owner's write is its current token's and commits first.
     */
    private void handOverWaitsForTheAdmittedTransaction(Connection a) throws Exception {
        Future<Integer> handOver = startHandOver();
        Thread.sleep(1000);
        assertTrue(!handOver.isDone(), "the handover waits for the old owner's admitted transaction");
        assertEquals(1, update(a, 1, 999), "the old owner's token is current while its transaction holds the lock");
        a.commit();
        assertEquals(1, handOver.get(20, TimeUnit.SECONDS), "the new owner's write, once the old owner ended");
        assertEquals(999, balance(1));
        assertEquals(206, balance(2));
        assertEquals(6, mark());
    }

    int balance(int id) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM " + table + " WHERE id = " + id)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    long mark() throws SQLException {
        try (Connection c = fenced(1)) {
            return c.unwrap(FencedConnection.class).readHighWaterMark(resource);
        }
    }

    /** The old owner took the guard after a savepoint and rolled back to it, releasing the epoch-row lock. */
    private void staleAfterSavepointRollback(boolean asSql) throws Exception {
        try (Connection a = fenced(5); Statement s = a.createStatement()) {
            a.setAutoCommit(false);
            Savepoint savepoint = asSql ? null : a.setSavepoint();
            if (asSql) {
                s.execute("SAVEPOINT before_write");
            }
            assertEquals(1, update(a, 1, 150), "the old owner writes under its lock");
            if (asSql) {
                s.execute("ROLLBACK TO SAVEPOINT before_write");
            } else {
                a.rollback(savepoint);
            }
            if (admitsTransactions()) {
                handOverWaitsForTheAdmittedTransaction(a);
                return;
            }
            handOver();
            FencingRefusedException stale = assertThrows(FencingRefusedException.class, () -> update(a, 1, 999),
                    "the write after the savepoint rollback must be guarded again");
            assertEquals(FencingSqlState.STALE_TOKEN, stale.getSQLState());
            a.commit();
        }
        assertEquals(100, balance(1), "nothing of the old owner committed");
        assertEquals(206, balance(2));
        assertEquals(6, mark());
    }

    @Test
    void aWriteAfterRollbackToASavepointIsGuardedAgain_C3() throws Exception {
        staleAfterSavepointRollback(false);
    }

    @Test
    void aWriteAfterRollbackToSavepointSentAsSqlIsGuardedAgain_C3() throws Exception {
        staleAfterSavepointRollback(true);
    }

    /**
     * The old owner's first read, which takes its snapshot. Where SERIALIZABLE turns reads into locking reads
     * (InnoDB), a read of every row would make the new owner wait for the old one instead of committing first.
     */
    String snapshotQuery() {
        return "SELECT sum(balance) FROM " + table;
    }

    /** A snapshot taken before the handover; the old owner's first write comes after the new owner committed. */
    private void staleSnapshot(int isolation) throws Exception {
        try (Connection a = fenced(5); Statement s = a.createStatement()) {
            a.setAutoCommit(false);
            a.setTransactionIsolation(isolation);
            try (ResultSet rs = s.executeQuery(snapshotQuery())) {
                assertTrue(rs.next(), "the snapshot is taken");
            }
            if (admitsTransactions()) {
                handOverWaitsForTheAdmittedTransaction(a);
                return;
            }
            handOver();
            SQLException refused = assertThrows(SQLException.class, () -> update(a, 1, 999));
            assertTrue(FencingSqlState.STALE_TOKEN.equals(refused.getSQLState())
                    || "40001".equals(refused.getSQLState()), () -> "a stale refusal or a serialization failure: "
                    + refused);
            try {
                a.commit();
            } catch (SQLException rolledBack) {
                // PostgreSQL may report that the failed transaction rolled back; either way nothing commits.
            }
        }
        assertEquals(100, balance(1), "nothing of the old owner committed");
        assertEquals(6, mark());
    }

    @Test
    void aRepeatableReadSnapshotFromBeforeAHandoverCannotCommit_C3() throws Exception {
        staleSnapshot(Connection.TRANSACTION_REPEATABLE_READ);
    }

    @Test
    void aSerializableSnapshotFromBeforeAHandoverCannotCommit_C3() throws Exception {
        staleSnapshot(Connection.TRANSACTION_SERIALIZABLE);
    }
}
