package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.config.Settings;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.sql.Analysis;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.Names;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The configured exempt tables ({@code fencing.exempt}) as one connection's database resolves them (schema, case,
 * search path), and whether a data change writes only them: decided by the catalog, never by the name in the text.
 */
final class ExemptTables {

    /** A table as the database resolved it: schema and own name as stored. */
    record Table(String schema, String name) {
    }

    private final Connection raw;
    private final Dialect dialect;
    /** Own names of the configured exempt tables, lower-cased: the cheap textual test before any catalog question. */
    private final Set<String> exemptNames = new HashSet<>();
    private final Set<Table> exempt = new HashSet<>();
    /** Configured exempt tables that did not exist at connect: resolved again when a statement names them. */
    private final List<EpochTable> unresolved = new ArrayList<>();

    private ExemptTables(Connection raw, Dialect dialect) {
        this.raw = raw;
        this.dialect = dialect;
    }

    /**
     * Resolves the configured exempt tables the way this connection's database resolves a name (schema, case).
     *
     * @throws SQLException {@link dev.fencing.jdbc.FencingSqlState#CONFIGURATION} when one is a view or another
     *                      object that is not a plain table, or the database is one the driver cannot ask
     */
    static ExemptTables open(Connection raw, Dialect dialect, List<EpochTable> exemptTables) throws SQLException {
        ExemptTables tables = new ExemptTables(raw, dialect);
        if (!exemptTables.isEmpty() && dialect == Dialect.GENERIC) {
            throw Settings.configuration(FencingProperty.EXEMPT.getName() + " needs a database whose catalog the"
                    + " driver can ask (PostgreSQL, H2, MariaDB)");
        }
        for (EpochTable table : exemptTables) {
            tables.exemptNames.add(table.simpleName());
            if (!tables.resolveExempt(table, true)) {
                tables.unresolved.add(table);
            }
        }
        return tables;
    }

    /**
     * Whether every target of a data change is a configured exempt table and, when it would run {@code unlocked}
     * (see {@link Catalog#needsGuard(Analysis, Catalog.Unlocked)}), it reads no other relation (a view read in it may
     * write elsewhere, found by review): first by name in the text (free), then, only when all match, by asking the
     * database which table each written reference means.
     */
    boolean writesOnlyExempt(Analysis analysis, Catalog.Unlocked unlocked) throws SQLException {
        if (analysis.targetTables().isEmpty() || !exemptNames.containsAll(analysis.targetTables())
                || analysis.readsRelations() && unlocked.now()
                || analysis.targetReferences().isEmpty()) {
            return false;
        }
        for (EpochTable table : List.copyOf(unresolved)) {
            if (analysis.targetTables().contains(table.simpleName()) && resolveExempt(table, false)) {
                unresolved.remove(table);
            }
        }
        for (List<String> reference : analysis.targetReferences()) {
            Table table = resolve(reference);
            if (table == null || !exempt.contains(table)) {
                return false;
            }
        }
        return true;
    }

    /** Resolves a configured exempt table; false when it does not exist (yet). */
    private boolean resolveExempt(EpochTable configured, boolean atConnect) throws SQLException {
        Resolved resolved = lookUp(List.of(configured.toString().split("\\.")));
        if (resolved == null) {
            return false;
        }
        if (!resolved.kind().equals("table")) {
            if (atConnect) {
                throw Settings.configuration(FencingProperty.EXEMPT.getName() + ": '" + configured + "' is a "
                        + resolved.kind() + ", not a plain table; only a plain table's own rows can be exempt");
            }
            return false;
        }
        exempt.add(resolved.table());
        return true;
    }

    /** The table a written name means to the database, only when it is a plain table (no view, no children). */
    private Table resolve(List<String> parts) throws SQLException {
        Resolved resolved = lookUp(parts);
        return resolved != null && resolved.kind().equals("table") ? resolved.table() : null;
    }

    /** What a written name is to the database: "table" for a plain one, or words for what else it is. */
    private record Resolved(Table table, String kind) {
    }

    private Resolved lookUp(List<String> parts) throws SQLException {
        if (parts.size() > 2) {
            return null;
        }
        switch (dialect) {
            case POSTGRESQL:
                return lookUpPostgres(String.join(".", parts));
            case H2:
                return lookUpH2(parts);
            default:
                return lookUpMariaDb(parts);
        }
    }

    /** {@code to_regclass} reads the name as the server's parser would, with this session's search_path. */
    private Resolved lookUpPostgres(String name) throws SQLException {
        String sql = "SELECT n.nspname, c.relname, c.relkind,"
                + " EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i WHERE i.inhparent = c.oid), c.relhasrules"
                + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE c.oid = pg_catalog.to_regclass(?)";
        try (PreparedStatement ps = raw.prepareStatement(sql)) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                String relkind = rs.getString(3);
                String kind = switch (relkind) {
                    case "r" -> rs.getBoolean(4) ? "table with inheritance children"
                            : rs.getBoolean(5) ? "table with rules" : "table";
                    case "p" -> "partitioned table";
                    case "v" -> "view";
                    case "m" -> "materialized view";
                    case "f" -> "foreign table";
                    default -> "relation of kind '" + relkind + "'";
                };
                return new Resolved(new Table(rs.getString(1), rs.getString(2)), kind);
            }
        }
    }

    /**
     * H2 has no {@code to_regclass}: a query over the name, which reads no row, lets H2 resolve it, and its result
     * metadata names the table or view it found. The name reaches SQL only as plain or double-quoted identifiers.
     */
    private Resolved lookUpH2(List<String> parts) throws SQLException {
        for (String part : parts) {
            if (!Names.isPlainOrDoubleQuoted(part)) {
                return null;
            }
        }
        Table table;
        try (Statement s = raw.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM " + String.join(".", parts) + " WHERE FALSE")) {
            ResultSetMetaData meta = rs.getMetaData();
            if (meta.getColumnCount() == 0) {
                return null;
            }
            table = new Table(meta.getSchemaName(1), meta.getTableName(1));
        } catch (SQLException e) {
            return null;
        }
        return typed(table, "SELECT TABLE_TYPE FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?");
    }

    /** MariaDB: the named schema or the current database; a name that matches several tables matches none. */
    private Resolved lookUpMariaDb(List<String> parts) throws SQLException {
        List<String> names = new ArrayList<>();
        for (String part : parts) {
            names.add(part.length() >= 2 && part.startsWith("`") && part.endsWith("`")
                    ? part.substring(1, part.length() - 1).replace("``", "`") : part);
        }
        String sql = "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES"
                + " WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?" + Dialect.MARIADB.allRows();
        try (PreparedStatement ps = raw.prepareStatement(sql)) {
            ps.setString(1, names.size() == 2 ? names.get(0) : null);
            ps.setString(2, names.get(names.size() - 1));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                Resolved resolved = new Resolved(new Table(rs.getString(1), rs.getString(2)),
                        "BASE TABLE".equals(rs.getString(3)) ? "table" : rs.getString(3).toLowerCase(Locale.ROOT));
                return rs.next() ? null : resolved;
            }
        }
    }

    private Resolved typed(Table table, String sql) throws SQLException {
        try (PreparedStatement ps = raw.prepareStatement(sql)) {
            ps.setString(1, table.schema());
            ps.setString(2, table.name());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                String type = rs.getString(1);
                return new Resolved(table, "BASE TABLE".equals(type) ? "table" : type.toLowerCase(Locale.ROOT));
            }
        }
    }
}
