package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.audit.FenceMetrics;
import dev.fencing.sql.EpochSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A resource's high-water mark from outside a fenced connection: read it, or raise it (the issuer's immediate
 * revocation).
 */
public final class EpochAdvance {
    private EpochAdvance() {
    }

    /** The resource's mark as committed now (0 when it has none), read without a lock: the one way it is read. */
    public static long readMark(Connection raw, EpochSql sql, String resource) throws SQLException {
        try (PreparedStatement read = raw.prepareStatement(sql.readMark())) {
            read.setString(1, resource);
            try (ResultSet rs = read.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /**
     * Makes {@code token} the resource's mark in {@code raw}'s current transaction, with the guard's own advance
     * (which waits for in-flight writers of the old mark), and holds the row's lock until that transaction ends.
     * A mark already above the token is refused as stale.
     */
    public static void establish(Connection raw, EpochSql sql, String resource, long token) throws SQLException {
        EpochGuard guard = new EpochGuard(raw, sql, null, null, null, null); // the issuer's resource has its lease row
        try {
            long previous = readMark(raw, sql, resource);
            guard.lock(resource, token);
            FenceMetrics.of(resource).established(token, previous);
        } finally {
            guard.close();
        }
    }
}
