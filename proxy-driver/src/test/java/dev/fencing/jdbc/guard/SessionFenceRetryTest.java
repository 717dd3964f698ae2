package dev.fencing.jdbc.guard;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which registration failures the session fence runs again, and how long a connection waits before its next try. */
class SessionFenceRetryTest {
    @Test
    void serializationFailuresDeadlocksAndLockTimeoutsAreTransientNothingElseIs() {
        assertTrue(SessionFence.transientFailure(new SQLException("x", "40001")));
        assertTrue(SessionFence.transientFailure(new SQLException("x", "40P01")));
        assertTrue(SessionFence.transientFailure(new SQLException("x", "55P03")));
        assertFalse(SessionFence.transientFailure(new SQLException("x", "ZF002")), "a stale token");
        assertFalse(SessionFence.transientFailure(new SQLException("x", "ZF006")), "a session-sharing proxy");
        assertFalse(SessionFence.transientFailure(new SQLException("x", "57014")), "the caller's cancel");
        assertFalse(SessionFence.transientFailure(new SQLException("x", "08006")), "a broken connection");
        assertFalse(SessionFence.transientFailure(new SQLException("x")), "no state");
    }

    @Test
    void theNextTryAfterAFailedIdlePointWaits100MsDoublingUpTo10S() {
        assertEquals(100, TimeUnit.NANOSECONDS.toMillis(SessionFence.retryDelayNanos(1)));
        assertEquals(200, TimeUnit.NANOSECONDS.toMillis(SessionFence.retryDelayNanos(2)));
        assertEquals(6_400, TimeUnit.NANOSECONDS.toMillis(SessionFence.retryDelayNanos(7)));
        assertEquals(10_000, TimeUnit.NANOSECONDS.toMillis(SessionFence.retryDelayNanos(8)));
        assertEquals(10_000, TimeUnit.NANOSECONDS.toMillis(SessionFence.retryDelayNanos(1_000)));
    }
}
