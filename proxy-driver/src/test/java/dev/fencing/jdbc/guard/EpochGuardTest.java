package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.guard.EpochGuard;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochSql;
import dev.fencing.sql.EpochTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongFunction;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The decisions of {@link EpochGuard#run} on an H2 database in memory: which form a statement is sent in, what a
 * failed prefix guard's verdict leads to, and that nothing of a refused statement runs. H2 has no prefix guard of
 * its own, so the prefix guard's verdicts are played by the test's {@link Call}, as the database would raise them.
 */
class EpochGuardTest {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private Connection raw;
    private EpochSql sql;
    private EpochGuard guard;

    @BeforeEach
    void open() throws SQLException {
        raw = DriverManager.getConnection("jdbc:h2:mem:epochGuard" + NAMES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        sql = new EpochSql(Dialect.H2, EpochTable.of("fencing_epoch"));
        try (Statement s = raw.createStatement()) {
            s.execute(sql.createTable());
        }
        guard = new EpochGuard(raw, sql, null, null, null, null);
    }

    @AfterEach
    void close() throws SQLException {
        guard.close();
        raw.close();
    }

    /**
     * A statement as the guard drives it: counts each form sent; the prefix guard's failures are queued, each made
     * from the nonce of the send it fails.
     */
    private static final class Call implements EpochGuard.Call<String> {
        final Deque<LongFunction<SQLException>> guardFailures = new ArrayDeque<>();
        int withGuard;
        int untouched;

        @Override
        public String withGuard(String resource, long token, long nonce) throws SQLException {
            withGuard++;
            LongFunction<SQLException> failure = guardFailures.poll();
            if (failure != null) {
                throw failure.apply(nonce);
            }
            return "guarded";
        }

        @Override
        public String untouched() {
            untouched++;
            return "untouched";
        }
    }

    private void markAt(long mark) throws SQLException {
        guard.run("r", mark, false, true, new Call());
        assertEquals(mark, guard.readMark("r"));
    }

    @Test
    void aFirstWriteRaisesTheMarkAndRunsOnceAfterTheLock_C2() throws SQLException {
        Call call = new Call();
        assertEquals("untouched", guard.run("r", 5, false, true, call));
        assertEquals(1, call.untouched);
        assertEquals(0, call.withGuard);
        assertEquals(5, guard.readMark("r"));
        assertTrue(raw.getAutoCommit(), "the driver's own transaction is over");
    }

    @Test
    void aStaleTokenIsRefusedBeforeTheStatementRunsAndTheMarkStays_C2() throws SQLException {
        markAt(7);
        Call call = new Call();
        FencingRefusedException refused = assertThrows(FencingRefusedException.class,
                () -> guard.run("r", 5, false, true, call));
        assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState());
        assertEquals(7, refused.getHighWaterMark());
        assertEquals(0, call.untouched + call.withGuard, "nothing of the statement was sent");
        assertEquals(7, guard.readMark("r"));
    }

    @Test
    void aPassingPrefixGuardSendsTheTextOnceWithTheGuardAhead_C8() throws SQLException {
        markAt(5);
        Call call = new Call();
        assertEquals("guarded", guard.run("r", 5, true, true, call));
        assertEquals(1, call.withGuard);
        assertEquals(0, call.untouched);
    }

    @Test
    void thePrefixGuardsStaleVerdictIsTheStaleRefusalWithTheMarkItCarries_C2() throws SQLException {
        markAt(9);
        Call call = new Call();
        call.guardFailures.add(nonce -> GuardFailureTest.guardError(EpochSql.GUARD_STALE_STATE, "9", nonce));
        FencingRefusedException refused = assertThrows(FencingRefusedException.class,
                () -> guard.run("r", 5, true, true, call));
        assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState());
        assertEquals(9, refused.getHighWaterMark());
        assertEquals(1, call.withGuard);
        assertEquals(0, call.untouched, "a stale statement is never sent again");
    }

    @Test
    void thePrefixGuardsBehindVerdictAdvancesInADriverTransactionAndSendsOnceMore_C2() throws SQLException {
        markAt(3);
        Call call = new Call();
        call.guardFailures.add(nonce -> GuardFailureTest.guardError(EpochSql.GUARD_BEHIND_STATE, null, nonce));
        assertEquals("guarded", guard.run("r", 5, true, true, call));
        assertEquals(2, call.withGuard, "the first send failed whole at its guard; the second ran after the advance");
        assertEquals(5, guard.readMark("r"));
        assertTrue(raw.getAutoCommit());
    }

    @Test
    void theCallersOwnErrorComesBackUntouchedEvenWithTheCastFailuresState_C8() throws SQLException {
        markAt(5);
        Call call = new Call();
        SQLException own = new SQLException("invalid input syntax for type integer: \"fencing_guard_failed stale 9\"",
                "22P02");
        call.guardFailures.add(nonce -> own);
        assertSame(own, assertThrows(SQLException.class, () -> guard.run("r", 5, true, true, call)),
                "neither its state nor its message makes the caller's error a verdict of the guard");
        assertEquals(1, call.withGuard);
        assertEquals(5, guard.readMark("r"));
    }

    @Test
    void theGuardsStatesWithoutTheSendsNonceAreTheCallersErrorsSentOnce_C10_C8() throws SQLException {
        markAt(5);
        for (boolean inTransaction : new boolean[]{false, true}) {
            raw.setAutoCommit(!inTransaction);
            for (String state : new String[]{EpochSql.GUARD_BEHIND_STATE, EpochSql.GUARD_STALE_STATE}) {
                Call call = new Call();
                SQLException own = GuardFailureTest.guardError(state, "9", 12345);
                call.guardFailures.add(nonce -> own);
                assertSame(own, assertThrows(SQLException.class, () -> guard.run("r", 5, true, true, call)),
                        "a caller's error with the guard's state but not this send's nonce comes back as it is");
                assertEquals(1, call.withGuard, "never sent a second time");
                assertEquals(0, call.untouched);
                assertEquals(5, guard.readMark("r"));
            }
            if (inTransaction) {
                raw.rollback();
            }
        }
    }

    @Test
    void aStatementThatCannotBeSentTwiceTakesTheLockFirstAndIsSentOnce_C8() throws SQLException {
        markAt(3);
        Call call = new Call();
        assertEquals("guarded", guard.run("r", 5, true, false, call));
        assertEquals(1, call.withGuard);
        assertEquals(5, guard.readMark("r"));
    }

    @Test
    void inTheCallersTransactionABehindVerdictRefusesAndForgetsTheMark_C3() throws SQLException {
        markAt(5);
        raw.setAutoCommit(false);
        Call call = new Call();
        call.guardFailures.add(nonce -> GuardFailureTest.guardError(EpochSql.GUARD_BEHIND_STATE, null, nonce));
        FencingRefusedException refused = assertThrows(FencingRefusedException.class,
                () -> guard.run("r", 5, true, true, call));
        assertEquals(FencingSqlState.CANNOT_GUARD, refused.getSQLState());
        assertEquals(1, call.withGuard);
        assertEquals(0, call.untouched);
        raw.rollback();
    }

    @Test
    void inTheCallersTransactionAStatementThatCannotCarryTheGuardRunsAfterTheLock_C3() throws SQLException {
        raw.setAutoCommit(false);
        Call call = new Call();
        assertEquals("untouched", guard.run("r", 4, false, true, call));
        assertEquals(1, call.untouched);
        raw.rollback();
        guard.rolledBack();
        assertEquals(0, guard.readMark("r"), "the advance rolled back with the caller's transaction");
    }
}
