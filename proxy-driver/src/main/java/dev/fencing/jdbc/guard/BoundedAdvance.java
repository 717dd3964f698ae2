package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.jdbc.audit.SqlStates;
import dev.fencing.sql.EpochSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL advance that waits a bounded time for its locks (the resource's advisory lock, then the epoch row),
 * in a savepoint of the transaction it runs in: past the bound it is rolled back to the savepoint and fails with
 * {@code 55P03} naming the sessions that hold what it waited for; otherwise the session's {@code lock_timeout} is
 * as it was before (see {@link EpochSql#advanceQueue()}).
 */
final class BoundedAdvance {
    /** The advance's own write, run once the queue lock is held; true when it raised the mark. */
    interface Raise {
        boolean run() throws SQLException;
    }

    private BoundedAdvance() {
    }

    static boolean run(Connection raw, EpochSql sql, String resource, long token, Raise raise) throws SQLException {
        try (Statement control = raw.createStatement()) {
            control.execute(EpochSql.ADVANCE_SAVEPOINT);
            String previous;
            boolean raised;
            try {
                try (PreparedStatement queue = raw.prepareStatement(sql.advanceQueue())) {
                    queue.setString(1, resource);
                    try (ResultSet rs = queue.executeQuery()) {
                        rs.next();
                        previous = rs.getString(1);
                    }
                }
                raised = raise.run();
            } catch (SQLException e) {
                if (!SqlStates.LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                    throw e; // the server's own failure, or a refusal decided with the transaction intact
                }
                control.execute(EpochSql.ADVANCE_ROLLBACK);
                control.execute(EpochSql.ADVANCE_RELEASE);
                throw Refusals.advanceHeldOff(resource, token, EpochSql.ADVANCE_LOCK_TIMEOUT_MS,
                        holders(raw, sql, resource), e);
            }
            try (PreparedStatement restore = raw.prepareStatement(sql.advanceBoundRestore())) {
                restore.setString(1, previous);
                restore.executeQuery().close();
            }
            control.execute(EpochSql.ADVANCE_RELEASE);
            return raised;
        }
    }

    /** The sessions holding what the advance waited for, as "pid N (application_name 'a', user 'u', state 's')". */
    private static List<String> holders(Connection raw, EpochSql sql, String resource) throws SQLException {
        List<String> holders = new ArrayList<>();
        try (PreparedStatement query = raw.prepareStatement(sql.advanceHolders())) {
            query.setString(1, resource);
            query.setString(2, resource);
            try (ResultSet rs = query.executeQuery()) {
                while (rs.next()) {
                    holders.add("pid " + rs.getInt(1) + " (application_name '" + rs.getString(2) + "', user '"
                            + rs.getString(3) + "', state '" + rs.getString(4) + "')");
                }
            }
        }
        return holders;
    }
}
