package dev.fencing.jdbc.internal;

import dev.fencing.sql.EpochSql;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** Checks at connect that the epoch table exists ({@code fencing.schema=validate}) or creates it ({@code create}). */
final class EpochSchema {
    private EpochSchema() {
    }

    static void prepare(Connection raw, EpochSql sql, Settings.SchemaMode mode) throws SQLException {
        boolean autoCommit = raw.getAutoCommit();
        try (Statement statement = raw.createStatement()) {
            if (mode == Settings.SchemaMode.CREATE) {
                statement.execute(sql.createTable());
            }
            statement.executeQuery(sql.validateTable()).close();
            if (!autoCommit) {
                raw.commit();
            }
        } catch (SQLException e) {
            if (!autoCommit) {
                try {
                    raw.rollback();
                } catch (SQLException rollbackFailure) {
                    e.addSuppressed(rollbackFailure);
                }
            }
            if (!aboutTheTable(e)) {
                // a lost connection, a timeout, a cancel: the database's own error, not a configuration problem
                throw e;
            }
            SQLException configuration = mode == Settings.SchemaMode.CREATE
                    ? Settings.configuration("cannot create the epoch table " + sql.table() + ": " + e.getMessage())
                    : Settings.configuration("the epoch table " + sql.table() + " is missing or lacks the columns"
                    + " (resource, epoch): " + e.getMessage() + ". Create it with: " + sql.createTable()
                    + " -- or connect once with fencing.schema=create");
            configuration.initCause(e);
            throw configuration;
        }
    }

    /**
     * Whether the statement failed because of the table itself: SQLState class 42 (undefined table or column,
     * syntax, privileges) or 3F (no such schema), or H2's "schema not found" (90079).
     */
    private static boolean aboutTheTable(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("42") || state.startsWith("3F") || state.equals("90079"));
    }
}
