package dev.fencing.jdbc;

import org.h2.api.Trigger;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Objects;

/**
 * The H2 trigger that makes the database itself refuse lowering, deleting or renaming a high-water mark in the
 * epoch table, whatever client or path writes it (SPEC C9); created with the table by {@code fencing.schema=create}
 * and {@code fencing init}. H2 runs it in-process: an H2 server needs this jar on its classpath.
 */
public final class H2EpochTrigger implements Trigger {
    private int resource = -1;
    private int epoch = -1;
    private String table;

    @Override
    public void init(Connection conn, String schemaName, String triggerName, String tableName, boolean before,
                     int type) throws SQLException {
        table = schemaName + "." + tableName;
        try (ResultSet columns = conn.getMetaData().getColumns(null, schemaName, tableName, null)) {
            while (columns.next()) {
                String name = columns.getString("COLUMN_NAME").toLowerCase(Locale.ROOT);
                int index = columns.getInt("ORDINAL_POSITION") - 1;
                if (name.equals("resource")) {
                    resource = index;
                } else if (name.equals("epoch")) {
                    epoch = index;
                }
            }
        }
        if (resource < 0 || epoch < 0) {
            throw new SQLException("fencing: the epoch table " + table + " lacks the columns (resource, epoch)",
                    FencingSqlState.CONFIGURATION);
        }
    }

    @Override
    public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
        if (oldRow == null) {
            return;
        }
        if (newRow == null) {
            throw refused("the high-water mark of resource " + oldRow[resource] + " in " + table
                    + " cannot be deleted");
        }
        if (!Objects.equals(oldRow[resource], newRow[resource])) {
            throw refused("the resource of a high-water mark in " + table + " cannot change (" + oldRow[resource]
                    + " to " + newRow[resource] + ")");
        }
        long before = ((Number) oldRow[epoch]).longValue();
        if (newRow[epoch] == null || ((Number) newRow[epoch]).longValue() < before) {
            throw refused("the high-water mark of resource " + oldRow[resource] + " in " + table
                    + " cannot go down (" + before + " to " + newRow[epoch] + ")");
        }
    }

    private static SQLException refused(String message) {
        return new SQLException("fencing: " + message, FencingSqlState.PROTECTED);
    }
}
