package dev.fencing.jdbc.guard;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Puts a connection's auto-commit mode back after the driver's own transaction, without hiding what happened to
 * that transaction: when the transaction failed (a lost connection while committing, above all), a failure to
 * restore the mode is added to that failure as suppressed, never thrown in its place. Otherwise a connection lost at
 * {@code COMMIT} would reach the caller as "connection closed" ({@code 08003}, which says nothing was sent) instead
 * of the I/O error on the commit itself ({@code 08006}: the outcome is unknown).
 */
public final class AutoCommitRestore {
    private AutoCommitRestore() {
    }

    /**
     * Sets {@code raw}'s auto-commit to {@code autoCommit}; {@code failure} is what ended the work before it, or
     * {@code null} when the work succeeded (a failure to restore is then thrown).
     */
    public static void restore(Connection raw, boolean autoCommit, Throwable failure) throws SQLException {
        try {
            raw.setAutoCommit(autoCommit);
        } catch (SQLException restoreFailure) {
            if (failure == null) {
                throw restoreFailure;
            }
            failure.addSuppressed(restoreFailure);
        }
    }
}
