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
                raw.rollback();
            }
            if (mode == Settings.SchemaMode.CREATE) {
                throw Settings.configuration("cannot create the epoch table " + sql.table() + ": " + e.getMessage());
            }
            throw Settings.configuration("the epoch table " + sql.table() + " is missing or lacks the columns"
                    + " (resource, epoch): " + e.getMessage() + ". Create it with: " + sql.createTable()
                    + " -- or connect once with fencing.schema=create");
        }
    }
}
