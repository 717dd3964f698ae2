package dev.fencing.jdbc.wrapper;

import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.sql.Analysis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link FencedExecution}, the one place a statement is run and decided, on an H2 connection of the fencing driver:
 * each route sends the statement the way it says, a mutation without a current token sends nothing, and batches and
 * row changes run after the lock. The statement classes' sending is played by a recording {@link Send}.
 */
class FencedExecutionTest {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private FencedConnectionImpl connection;
    private FencedExecution execution;
    private StatementRouter router;

    @BeforeEach
    void open() throws SQLException {
        connection = (FencedConnectionImpl) DriverManager.getConnection("jdbc:fencing:h2:mem:execution"
                + NAMES.incrementAndGet() + ";DB_CLOSE_DELAY=-1;fencing.schema=create");
        execution = connection.execution();
        router = connection.router();
        try (Statement s = connection.raw().createStatement()) {
            s.execute("CREATE TABLE acct (id INT PRIMARY KEY, balance INT)");
        }
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    /** A statement class's way of sending, recorded; H2 has no prefix guard, so the guard never goes ahead. */
    private static final class Send implements FencedExecution.Send {
        int untouched;
        int withGuard;

        @Override
        public Object untouched() {
            return ++untouched;
        }

        @Override
        public Object withGuardAhead(FencedExecution.GuardAhead guard) {
            withGuard++;
            throw new AssertionError("H2 has no prefix guard");
        }

        @Override
        public boolean canCarryGuard() {
            return false;
        }

        @Override
        public int queryTimeout() {
            return 0;
        }
    }

    private Object run(String sql, Send send) throws SQLException {
        Analysis analysis = router.analyze(sql);
        return execution.run(router.route(sql, analysis, true), sql, analysis, Exec.UPDATE, send);
    }

    @Test
    void aReadIsSentUntouchedWithoutAToken_C5() throws SQLException {
        Send send = new Send();
        run("SELECT balance FROM acct", send);
        assertEquals(1, send.untouched);
    }

    @Test
    void aMutationWithoutATokenSendsNothing_C1() {
        Send send = new Send();
        FencingRefusedException refused = assertThrows(FencingRefusedException.class,
                () -> run("UPDATE acct SET balance = 1", send));
        assertEquals(FencingSqlState.INVALID_TOKEN, refused.getSQLState());
        assertEquals(0, send.untouched + send.withGuard);
    }

    @Test
    void aFencingSettingIsAppliedHereAndAnsweredWithoutTheDatabase_C6() throws SQLException {
        Send send = new Send();
        assertEquals(0, run("SET fencing.token = 4", send));
        assertEquals(0, send.untouched);
        assertEquals(4, connection.getFencingToken().getAsLong());
    }

    @Test
    void aMutationWithACurrentTokenRunsOnceAfterTheLockAndRaisesTheMark_C2() throws SQLException {
        connection.setFencingToken(6);
        Send send = new Send();
        run("UPDATE acct SET balance = 1", send);
        assertEquals(1, send.untouched);
        assertEquals(6, connection.readHighWaterMark(connection.getFencingResource()));
    }

    @Test
    void aStaleTokenSendsNothing_C2() throws SQLException {
        connection.setFencingToken(6);
        run("UPDATE acct SET balance = 1", new Send());
        connection.setFencingToken(5);
        Send send = new Send();
        FencingRefusedException refused = assertThrows(FencingRefusedException.class,
                () -> run("UPDATE acct SET balance = 2", send));
        assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState());
        assertEquals(6, refused.getHighWaterMark());
        assertEquals(0, send.untouched);
    }

    @Test
    void aBatchOfReadsNeedsNoTokenAndABatchWithAMutationRunsOnlyWithOne_C5() throws SQLException {
        FencedExecution.Batch batch = new FencedExecution.Batch();
        String read = "SELECT 1";
        batch.add(read, router.analyze(read), router.routeInBatch(read, router.analyze(read)));
        int[] ran = new int[1];
        execution.batch(batch, 0, () -> ++ran[0]);
        assertEquals(1, ran[0]);
        String write = "UPDATE acct SET balance = 3";
        batch.add(write, router.analyze(write), router.routeInBatch(write, router.analyze(write)));
        assertThrows(FencingRefusedException.class, () -> execution.batch(batch, 0, () -> ++ran[0]));
        assertEquals(1, ran[0], "the refused batch did not run");
        connection.setFencingToken(2);
        execution.batch(batch, 0, () -> ++ran[0]);
        assertEquals(2, ran[0]);
    }

    @Test
    void transactionControlCannotJoinABatch_C5() throws SQLException {
        String commit = "COMMIT";
        FencingRefusedException refused = assertThrows(FencingRefusedException.class,
                () -> router.routeInBatch(commit, router.analyze(commit)));
        assertEquals(FencingSqlState.CANNOT_GUARD, refused.getSQLState());
    }

    @Test
    void aRowChangeRunsAfterTheLockOnlyWithACurrentToken_C5() throws SQLException {
        int[] ran = new int[1];
        assertThrows(FencingRefusedException.class, () -> execution.afterLock("row change", null, 0, () -> ++ran[0]));
        assertEquals(0, ran[0]);
        connection.setFencingToken(3);
        execution.afterLock("row change", null, 0, () -> ++ran[0]);
        assertEquals(1, ran[0]);
        assertEquals(3, connection.readHighWaterMark(connection.getFencingResource()));
    }

    @Test
    void theTextSentIsTheGuardOneSemicolonAndTheCallersTextUnchanged_C8() throws SQLException {
        assertEquals("SELECT g;UPDATE t SET a = '?'", FencedExecution.joined("SELECT g", "UPDATE t SET a = '?'"));
    }
}
