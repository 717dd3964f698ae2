package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * SPEC C9 and C8, issue 10 families 1 and 2: the guard rests on what the server says. An old owner writes in a
 * transaction, the transaction ends in a way the driver does not see (each database's subclass lists them), a new
 * owner advances the mark, and the old owner's next write must be refused; refused statements leave nothing, not
 * even what their statement-level triggers write, and with a current token every statement runs exactly once. The
 * judge is a raw connection.
 */
abstract class ServerTruthTest {
    static final long MARK = 5;

    String raw;
    String table;
    String log;
    String resource;
    Connection judge;
    private final ExecutorService newOwner = Executors.newSingleThreadExecutor();

    abstract TestDatabase database();

    /** Creates an AFTER INSERT, UPDATE, DELETE statement-level trigger on {@link #table} adding a row to {@link #log}. */
    abstract void createStatementTrigger() throws SQLException;

    @BeforeEach
    void createData() throws Exception {
        raw = database().rawUrl();
        table = TestDatabase.unique("st");
        log = table + "_log";
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, n INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 0), (2, 0)", "CREATE TABLE " + log + " (n INT)");
        judge = DriverManager.getConnection(raw);
        try (Connection c = owner(MARK); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET n = 0 WHERE id = 2");
        }
    }

    @AfterEach
    void dropData() throws SQLException {
        newOwner.shutdownNow();
        judge.close();
        TestDatabase.dropNamed(raw, table);
    }

    Connection owner(long token) throws SQLException {
        return DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resource=" + resource, "fencing.token=" + token));
    }

    long value(String sql) throws SQLException {
        try (Statement s = judge.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    long n(int id) throws SQLException {
        return value("SELECT n FROM " + table + " WHERE id = " + id);
    }

    long logged() throws SQLException {
        return value("SELECT count(*) FROM " + log);
    }

    long mark() throws SQLException {
        return value("SELECT epoch FROM fencing_epoch WHERE resource = '" + resource + "'");
    }

    /** A transaction end the driver is not told of, run on the old owner's connection after its first write. */
    interface HiddenEnd {
        void run(Connection oldOwner, Statement s) throws SQLException;
    }

    /**
     * The old owner (token {@link #MARK}) writes in a transaction, {@code end} ends it behind the driver's back,
     * a new owner advances to {@code MARK + 1} (which must not wait: the old transaction is over), and the old
     * owner's next write is refused with nothing changed.
     */
    void staleAfter(HiddenEnd end) throws Exception {
        try (Connection old = owner(MARK); Statement s = old.createStatement()) {
            old.setAutoCommit(false);
            s.executeUpdate("UPDATE " + table + " SET n = n + 1 WHERE id = 1");
            end.run(old, s);
            long before = n(1);
            advanceByNewOwner();
            assertThrows(SQLException.class, () -> s.executeUpdate("UPDATE " + table + " SET n = n + 100 WHERE id = 1"));
            try {
                old.commit();
            } catch (SQLException ignored) {
                // the refusal may have left the transaction failed; nothing of it may commit either way
            }
            assertEquals(before, n(1), "the old owner's write after the hidden end changed nothing");
            assertEquals(MARK + 1, mark());
        }
    }

    private void advanceByNewOwner() throws Exception {
        Future<Integer> advance = newOwner.submit(() -> {
            try (Connection c = owner(MARK + 1); Statement s = c.createStatement()) {
                return s.executeUpdate("UPDATE " + table + " SET n = n WHERE id = 2");
            }
        });
        try {
            assertEquals(1, advance.get(5, TimeUnit.SECONDS));
        } catch (TimeoutException e) {
            fail("the new owner waited: the old transaction did not really end, so the scenario proves nothing");
        }
    }

    @Test
    void aCommitSentAsSqlEndsTheTransactionAndTheNextWriteIsGuardedAgain_C9() throws Exception {
        staleAfter((old, s) -> s.execute("COMMIT"));
    }

    @Test
    void aRollbackSentAsSqlEndsTheTransactionAndTheNextWriteIsGuardedAgain_C9() throws Exception {
        staleAfter((old, s) -> s.execute("ROLLBACK"));
    }

    @Test
    void beginAndCommitSentAsSqlInAutocommitAreFollowedByTheServer_C9() throws Exception {
        try (Connection old = owner(MARK); Statement s = old.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("UPDATE " + table + " SET n = n + 1 WHERE id = 1");
            s.execute("COMMIT");
            long before = n(1);
            advanceByNewOwner();
            assertThrows(SQLException.class, () -> s.executeUpdate("UPDATE " + table + " SET n = n + 100 WHERE id = 1"));
            assertEquals(before, n(1));
        }
    }

    // ---- family 2: refused statements leave nothing; current ones run once ----------------------------------

    private String[] staleWrites() {
        return new String[] {
            "UPDATE " + table + " SET n = n + 1 WHERE id = -1",
            "UPDATE " + table + " SET n = n + 1",
            "DELETE FROM " + table + " WHERE id = -1",
            "DELETE FROM " + table,
            "INSERT INTO " + table + " SELECT id + 10, n FROM " + table + " WHERE id < 0",
            "INSERT INTO " + table + " SELECT id + 10, n FROM " + table,
        };
    }

    @Test
    void aRefusedStatementFiresNoStatementTriggerInAutocommit_C8() throws Exception {
        createStatementTrigger();
        for (String sql : staleWrites()) {
            try (Connection stale = owner(MARK - 1); Statement s = stale.createStatement()) {
                assertEquals(FencingSqlState.STALE_TOKEN, assertThrows(SQLException.class, () -> s.executeUpdate(sql))
                        .getSQLState(), sql);
            }
            assertEquals(0, logged(), "a statement trigger of a refused statement wrote: " + sql);
            assertEquals(2, value("SELECT count(*) FROM " + table + " WHERE n = 0"), sql);
        }
    }

    @Test
    void aRefusedStatementInATransactionLeavesNothingEvenIfTheCallerCommits_C8() throws Exception {
        createStatementTrigger();
        for (String sql : staleWrites()) {
            try (Connection stale = owner(MARK - 1); Statement s = stale.createStatement()) {
                stale.setAutoCommit(false);
                assertThrows(SQLException.class, () -> s.executeUpdate(sql), sql);
                try {
                    stale.commit();
                } catch (SQLException ignored) {
                    // a database that failed the transaction refuses the commit: nothing commits either way
                }
            }
            assertEquals(0, logged(), "a statement trigger of a refused statement wrote: " + sql);
            assertEquals(2, value("SELECT count(*) FROM " + table + " WHERE n = 0"), sql);
        }
    }

    @Test
    void withACurrentTokenAStatementThatMatchesNoRowRunsOnce_C8() throws Exception {
        createStatementTrigger();
        try (Connection c = owner(MARK); Statement s = c.createStatement()) {
            assertEquals(0, s.executeUpdate("UPDATE " + table + " SET n = n + 1 WHERE id = -1"));
            assertEquals(1, logged(), "autocommit: the trigger fired once");
            c.setAutoCommit(false);
            assertEquals(0, s.executeUpdate("DELETE FROM " + table + " WHERE id = -1"));
            c.commit();
            assertEquals(2, logged(), "in a transaction: the trigger fired once");
        }
    }

    @Test
    void theFirstWriteOfANewEpochRunsOnceInAutocommit_C8() throws Exception {
        createStatementTrigger();
        try (Connection c = owner(MARK + 1); Statement s = c.createStatement()) {
            assertEquals(0, s.executeUpdate("UPDATE " + table + " SET n = n + 1 WHERE id = -1"));
            assertEquals(1, logged(), "the trigger fired once");
            assertEquals(MARK + 1, mark());
        }
    }

    @Test
    void theFirstWriteOfANewEpochInsideACallersTransactionKeepsItUsable_C3() throws Exception {
        createStatementTrigger();
        try (Connection c = owner(MARK + 1); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            assertEquals(1, s.executeUpdate("UPDATE " + table + " SET n = n + 1 WHERE id = 1"));
            assertEquals(1, s.executeUpdate("UPDATE " + table + " SET n = n + 1 WHERE id = 2"));
            c.commit();
        }
        assertEquals(1, n(1));
        assertEquals(1, n(2));
        assertEquals(2, logged());
        assertEquals(MARK + 1, mark());
    }

    @Test
    void rollingBackTheFirstWriteOfANewEpochLeavesTheOldEpochWorking_C3() throws Exception {
        try (Connection c = owner(MARK + 1); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            assertEquals(1, s.executeUpdate("UPDATE " + table + " SET n = n + 1 WHERE id = 1"));
            c.rollback();
        }
        assertEquals(MARK, mark());
        try (Connection c = owner(MARK); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            assertEquals(1, s.executeUpdate("UPDATE " + table + " SET n = n + 1 WHERE id = 1"));
            c.commit();
        }
        assertEquals(1, n(1));
    }
}
