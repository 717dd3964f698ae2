package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.audit.SqlStates;

import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.PreparedStatement;

/**
 * Resolves the fence's own tables once, at connect, to the schema and table the database itself finds for the
 * configured name at that moment (PostgreSQL's {@code to_regclass} through {@code search_path}; H2's own lookup
 * through its current schema and search path; MariaDB's current database), so that every statement the fence sends
 * afterwards names them qualified and no later {@code search_path}, {@code setSchema} or {@code SET SCHEMA} can
 * point the fence at another schema's table.
 */
public final class FenceTables {
    private FenceTables() {
    }

    /**
     * The table the database finds for {@code configured} now, qualified exactly as its catalog stores it;
     * {@code null} when there is none. On MariaDB (no search path) the configured database or the current one
     * qualifies it; where the dialect is unknown the configured name is returned as it is.
     */
    public static EpochTable resolve(Connection raw, Dialect dialect, EpochTable configured) throws SQLException {
        switch (dialect) {
            case POSTGRESQL:
                try (PreparedStatement find = raw.prepareStatement("SELECT n.nspname, c.relname FROM pg_catalog.pg_class c"
                        + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass(?)")) {
                    find.setString(1, configured.render(dialect));
                    try (ResultSet rs = find.executeQuery()) {
                        return rs.next() ? EpochTable.resolved(rs.getString(1), rs.getString(2)) : null;
                    }
                }
            case H2:
                // H2 reports the schema and table its own name lookup chose for a query's columns.
                try (Statement find = raw.createStatement();
                     ResultSet rs = find.executeQuery("SELECT * FROM " + configured.render(dialect) + " WHERE 1 = 0")) {
                    ResultSetMetaData meta = rs.getMetaData();
                    if (meta.getColumnCount() == 0) {
                        return null;
                    }
                    return EpochTable.resolved(meta.getSchemaName(1), meta.getTableName(1));
                } catch (SQLException e) {
                    if (isMissingTable(e)) {
                        return null;
                    }
                    throw e;
                }
            case MARIADB:
                EpochTable pinned = pin(raw, dialect, configured);
                try (PreparedStatement find = raw.prepareStatement("SELECT TABLE_SCHEMA, TABLE_NAME FROM"
                        + " information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
                    find.setString(1, pinned.storedSchema(dialect));
                    find.setString(2, pinned.storedTable(dialect));
                    try (ResultSet rs = find.executeQuery()) {
                        return rs.next() ? EpochTable.resolved(rs.getString(1), rs.getString(2)) : null;
                    }
                }
            default:
                return configured;
        }
    }

    /**
     * {@link #resolve}, or for a table that does not exist yet, the name it would be created under now: the
     * configured schema, or the database's current schema (the first existing schema of {@code search_path} on
     * PostgreSQL). The configured name as it is when there is no current schema.
     */
    public static EpochTable locate(Connection raw, Dialect dialect, EpochTable configured) throws SQLException {
        EpochTable found = resolve(raw, dialect, configured);
        return found != null ? found : pin(raw, dialect, configured);
    }

    private static EpochTable pin(Connection raw, Dialect dialect, EpochTable configured) throws SQLException {
        if (configured.qualified()) {
            return EpochTable.resolved(configured.storedSchema(dialect), configured.storedTable(dialect));
        }
        String query;
        switch (dialect) {
            case POSTGRESQL:
                query = "SELECT current_schema()";
                break;
            case H2:
                query = "SELECT CURRENT_SCHEMA";
                break;
            case MARIADB:
                query = "SELECT DATABASE()";
                break;
            default:
                return configured;
        }
        try (Statement s = raw.createStatement(); ResultSet rs = s.executeQuery(query)) {
            String schema = rs.next() ? rs.getString(1) : null;
            return schema == null || schema.isEmpty() ? configured
                    : EpochTable.resolved(schema, configured.storedTable(dialect));
        }
    }

    private static boolean isMissingTable(SQLException e) {
        return SqlStates.isMissingTable(e.getSQLState());
    }
}
