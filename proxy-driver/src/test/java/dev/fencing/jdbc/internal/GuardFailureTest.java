package dev.fencing.jdbc.internal;

import dev.fencing.sql.EpochSql;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The prefix guard's own error, told apart from the caller's statement's errors (SPEC C2). */
class GuardFailureTest {
    private static final String MARKER = EpochSql.GUARD_FAILURE_MARKER;

    @Test
    void aStaleFailureCarriesTheMarkTheServerReported_C2() {
        GuardFailure failure = GuardFailure.of(new SQLException("ERROR: " + MARKER + " stale 12345 (token 7)",
                "P0001"));
        assertEquals(new GuardFailure(true, 12345), failure);
    }

    @Test
    void aBehindFailureHasNoMark() {
        assertEquals(new GuardFailure(false, 0), GuardFailure.of(new SQLException(MARKER + " behind 9")));
    }

    @Test
    void theMarkerIsFoundInACauseWhenTheDriverWrappedTheServersError() {
        SQLException wrapped = new SQLException("batch entry 0 failed", new SQLException(null,
                new RuntimeException("Where: " + MARKER + " stale 9")));
        assertEquals(new GuardFailure(true, 9), GuardFailure.of(wrapped));
    }

    @Test
    void anyOtherErrorIsTheCallersAndPassesUntouched() {
        assertNull(GuardFailure.of(new SQLException("duplicate key value violates unique constraint", "23505")));
        assertNull(GuardFailure.of(new SQLException((String) null)));
        assertNull(GuardFailure.of(new SQLException(MARKER + " stale ")), "a stale failure without a mark is not ours");
        assertNull(GuardFailure.of(new SQLException("fencing_guard stale 5")));
    }
}
