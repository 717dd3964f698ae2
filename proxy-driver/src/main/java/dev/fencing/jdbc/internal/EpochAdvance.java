package dev.fencing.jdbc.internal;

import dev.fencing.sql.EpochSql;

import java.sql.Connection;
import java.sql.SQLException;

/** Raises a resource's high-water mark from outside a fenced connection: the issuer's immediate revocation. */
public final class EpochAdvance {
    private EpochAdvance() {
    }

    /**
     * Makes {@code token} the resource's mark in {@code raw}'s current transaction, with the guard's own advance
     * (which waits for in-flight writers of the old mark), and holds the row's lock until that transaction ends.
     * A mark already above the token is refused as stale.
     */
    public static void establish(Connection raw, EpochSql sql, String resource, long token) throws SQLException {
        EpochGuard guard = new EpochGuard(raw, sql, null);
        try {
            long previous = guard.readMark(resource);
            guard.lock(resource, token);
            FenceMetrics.of(resource).established(token, previous);
        } finally {
            guard.close();
        }
    }
}
