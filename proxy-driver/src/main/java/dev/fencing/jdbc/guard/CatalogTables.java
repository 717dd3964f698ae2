package dev.fencing.jdbc.guard;

import dev.fencing.sql.Dialect;
import dev.fencing.sql.Names;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which table a name written in a statement means to one connection's database, asked of the database itself
 * (PostgreSQL's {@code to_regclass} with the session's search_path, H2's own name lookup, MariaDB's current
 * database): the one implementation behind exempt tables, the resource map and {@code fencing map}.
 */
final class CatalogTables {
    /** A table as the database resolved it: schema and own name as stored. */
    record Table(String schema, String name) {
    }

    private final Connection raw;
    private final Dialect dialect;
    /**
     * SQL over a trigger ({@code t} in {@code pg_trigger}, {@code tr} in MariaDB's {@code TRIGGERS}) that holds when it
     * is the fence's own enforcement trigger beside the epoch table ({@code fencing enforce}): that code only checks
     * and advances the table's resource, so it does not count as code that writes elsewhere; {@code FALSE} when no
     * epoch table is known.
     */
    private final String fenceTrigger;
    /** The PostgreSQL look-up with this fence's triggers excluded, built once per connection, not per name. */
    private final String postgresLookUp;

    CatalogTables(Connection raw, Dialect dialect) {
        this(raw, dialect, null);
    }

    /** With {@code epochTable} (resolved): its enforcement triggers are the fence's own, not code (see {@link #fenceTrigger}). */
    CatalogTables(Connection raw, Dialect dialect, dev.fencing.sql.EpochTable epochTable) {
        this.raw = raw;
        this.dialect = dialect;
        this.fenceTrigger = epochTable == null ? "FALSE" : fenceTrigger(dialect, epochTable);
        this.postgresLookUp = dialect != Dialect.POSTGRESQL ? null : "SELECT n.nspname, c.relname, c.relkind,"
                + " EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i WHERE i.inhparent = c.oid), c.relhasrules, "
                + PG_RUNS_CODE.replace("%1$s", fenceTrigger)
                + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE c.oid = pg_catalog.to_regclass(?)";
    }

    private static String fenceTrigger(Dialect dialect, dev.fencing.sql.EpochTable epochTable) {
        switch (dialect) {
            case POSTGRESQL:
                return "(t.tgname = '" + dev.fencing.sql.EnforceSql.TRIGGER + "' AND t.tgfoid = pg_catalog.to_regprocedure('"
                        + new dev.fencing.sql.EnforceSql(epochTable, epochTable).functionSignature().replace("'", "''")
                        + "'))";
            case MARIADB:
                // exactly the statement MariaDbEnforceSql.triggerStatement writes, for a valid resource name
                String prefix = new dev.fencing.sql.MariaDbEnforceSql(epochTable, epochTable).triggerStatementPrefix();
                String literal = "'" + prefix.replace("\\", "\\\\").replace("'", "''") + "'";
                String resource = "SUBSTRING_INDEX(SUBSTRING(tr.ACTION_STATEMENT, CHAR_LENGTH(" + literal + ") + 1),"
                        + " '''', 1)";
                return "(tr.ACTION_STATEMENT = CONCAT(" + literal + ", " + resource + ", ''', ''', tr.EVENT_OBJECT_SCHEMA,"
                        + " '.', tr.EVENT_OBJECT_TABLE, ''')') AND " + resource
                        + " REGEXP '^[A-Za-z0-9_.:/@+=-]{1,200}$')";
            default:
                return "FALSE";
        }
    }

    /**
     * What a written name is to the database: "table" for a plain one, or words for what else it is; and whether a
     * write to it may run code that writes other tables (a user trigger, a cascading foreign key pointing at it; on
     * PostgreSQL also row security, and defaults, constraints or indexes calling functions outside
     * {@code pg_catalog} or volatile ones, and domain-typed columns).
     */
    record Resolved(Table table, String kind, boolean runsCode) {
    }

    /**
     * PostgreSQL, over {@code pg_class c}: whether a write to {@code c} may run code that writes elsewhere. Foreign keys'
     * own internal triggers do not count, but a key pointing at {@code c} whose delete or update action writes does.
     */
    private static final String PG_RUNS_CODE = "(EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t WHERE t.tgrelid = c.oid"
            + " AND NOT t.tgisinternal AND NOT %1$s) OR c.relrowsecurity"
            + " OR EXISTS (SELECT 1 FROM pg_catalog.pg_constraint f WHERE f.confrelid = c.oid AND f.contype = 'f'"
            + " AND (f.confdeltype IN ('c', 'n', 'd') OR f.confupdtype IN ('c', 'n', 'd')))"
            // a column of any type outside pg_catalog but an enum (domains, composites, ranges, extension types: their
            // checks and functions run on every write), or an array of one
            + " OR EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid"
            + " LEFT JOIN pg_catalog.pg_type e ON e.oid = ty.typelem"
            + " WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
            + " AND (ty.typnamespace <> 'pg_catalog'::pg_catalog.regnamespace AND ty.typtype <> 'e'"
            + " OR e.typnamespace <> 'pg_catalog'::pg_catalog.regnamespace AND e.typtype <> 'e'))"
            // an operator class outside pg_catalog: in an index of the table, in the index a foreign key of the table
            // checks against, in the partition key of the table or of a table it is a partition of (found by review)
            + " OR EXISTS (SELECT 1 FROM pg_catalog.pg_index i, pg_catalog.unnest(CAST(i.indclass AS oid[])) k"
            + " JOIN pg_catalog.pg_opclass oc ON oc.oid = k WHERE (i.indrelid = c.oid OR i.indexrelid IN (SELECT"
            + " f.conindid FROM pg_catalog.pg_constraint f WHERE f.conrelid = c.oid AND f.contype = 'f'))"
            + " AND oc.opcnamespace <> 'pg_catalog'::pg_catalog.regnamespace)"
            + " OR EXISTS (SELECT 1 FROM pg_catalog.pg_partitioned_table pt WHERE (pt.partrelid = c.oid"
            + " OR c.relispartition AND pt.partrelid IN (SELECT pa.relid FROM pg_catalog.pg_partition_ancestors(c.oid)"
            + " pa)) AND (pt.partexprs IS NOT NULL OR EXISTS (SELECT 1 FROM"
            + " pg_catalog.unnest(CAST(pt.partclass AS oid[])) k JOIN pg_catalog.pg_opclass oc ON oc.oid = k"
            + " WHERE oc.opcnamespace <> 'pg_catalog'::pg_catalog.regnamespace)))"
            // functions in defaults, constraints and index expressions or predicates
            + " OR EXISTS (SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_proc p"
            + " ON d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND p.oid = d.refobjid"
            + " WHERE (d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass"
            + " AND d.objid IN (SELECT ad.oid FROM pg_catalog.pg_attrdef ad WHERE ad.adrelid = c.oid)"
            + " OR d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass"
            + " AND d.objid IN (SELECT co.oid FROM pg_catalog.pg_constraint co WHERE co.conrelid = c.oid)"
            + " OR d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass"
            + " AND d.objid IN (SELECT i.indexrelid FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid))"
            + " AND (p.pronamespace <> 'pg_catalog'::pg_catalog.regnamespace OR p.provolatile = 'v'"
            + " AND p.proname NOT IN ('" + String.join("', '", WritingFunctions.HARMLESS_POSTGRES) + "')))"
            // operators in defaults and constraints are function calls too
            + " OR EXISTS (SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_operator o"
            + " ON d.refclassid = 'pg_catalog.pg_operator'::pg_catalog.regclass AND o.oid = d.refobjid"
            + " WHERE (d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass"
            + " AND d.objid IN (SELECT ad.oid FROM pg_catalog.pg_attrdef ad WHERE ad.adrelid = c.oid)"
            + " OR d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass"
            + " AND d.objid IN (SELECT co.oid FROM pg_catalog.pg_constraint co WHERE co.conrelid = c.oid))"
            + " AND o.oprnamespace <> 'pg_catalog'::pg_catalog.regnamespace))";

    Resolved lookUp(List<String> parts) throws SQLException {
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
        try (PreparedStatement ps = raw.prepareStatement(postgresLookUp)) {
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
                return new Resolved(new Table(rs.getString(1), rs.getString(2)), kind, rs.getBoolean(6));
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
        return typed(table, "SELECT t.TABLE_TYPE, " + runsCode("INFORMATION_SCHEMA", "t.TABLE_SCHEMA", "t.TABLE_NAME")
                + " FROM INFORMATION_SCHEMA.TABLES t WHERE t.TABLE_SCHEMA = ? AND t.TABLE_NAME = ?");
    }

    /** MariaDB: the named schema or the current database; a name that matches several tables matches none. */
    private Resolved lookUpMariaDb(List<String> parts) throws SQLException {
        List<String> names = new ArrayList<>();
        for (String part : parts) {
            names.add(part.length() >= 2 && part.startsWith("`") && part.endsWith("`")
                    ? part.substring(1, part.length() - 1).replace("``", "`") : part);
        }
        String sql = "SELECT t.TABLE_SCHEMA, t.TABLE_NAME, t.TABLE_TYPE, "
                + runsCode("information_schema", "t.TABLE_SCHEMA", "t.TABLE_NAME")
                + " FROM information_schema.TABLES t"
                + " WHERE t.TABLE_SCHEMA = COALESCE(?, DATABASE()) AND t.TABLE_NAME = ?" + Dialect.MARIADB.allRows();
        try (PreparedStatement ps = raw.prepareStatement(sql)) {
            ps.setString(1, names.size() == 2 ? names.get(0) : null);
            ps.setString(2, names.get(names.size() - 1));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                Resolved resolved = new Resolved(new Table(rs.getString(1), rs.getString(2)),
                        "BASE TABLE".equals(rs.getString(3)) ? "table" : rs.getString(3).toLowerCase(Locale.ROOT),
                        rs.getBoolean(4));
                return rs.next() ? null : resolved;
            }
        }
    }

    /**
     * H2 and MariaDB, in the standard information schema ({@code schema}): whether a write to the table
     * ({@code tableSchema}, {@code tableName}: columns of the outer query) may run code that writes elsewhere, a
     * trigger on it or a foreign key pointing at it whose delete or update action writes.
     */
    private String runsCode(String schema, String tableSchema, String tableName) {
        String h2 = !schema.equals("INFORMATION_SCHEMA") ? ""
                // H2 evaluates SQL in defaults, generated columns and checks, data-change delta tables included
                // (found by review): any such expression counts, an identity column's own sequence does not
                : " OR EXISTS (SELECT 1 FROM INFORMATION_SCHEMA.COLUMNS co WHERE co.TABLE_SCHEMA = " + tableSchema
                + " AND co.TABLE_NAME = " + tableName + " AND (co.COLUMN_DEFAULT IS NOT NULL AND co.IS_IDENTITY = 'NO'"
                + " OR co.GENERATION_EXPRESSION IS NOT NULL)) OR EXISTS (SELECT 1 FROM"
                + " INFORMATION_SCHEMA.TABLE_CONSTRAINTS ck WHERE ck.TABLE_SCHEMA = " + tableSchema
                + " AND ck.TABLE_NAME = " + tableName + " AND ck.CONSTRAINT_TYPE = 'CHECK')"
                + " OR EXISTS (SELECT 1 FROM INFORMATION_SCHEMA.COLUMNS co JOIN INFORMATION_SCHEMA.DOMAINS dm"
                + " ON dm.DOMAIN_SCHEMA = co.DOMAIN_SCHEMA AND dm.DOMAIN_NAME = co.DOMAIN_NAME"
                + " WHERE co.TABLE_SCHEMA = " + tableSchema + " AND co.TABLE_NAME = " + tableName + ")";
        return "(EXISTS (SELECT 1 FROM " + schema + ".TRIGGERS tr WHERE tr.EVENT_OBJECT_SCHEMA = " + tableSchema
                + " AND tr.EVENT_OBJECT_TABLE = " + tableName + " AND NOT " + fenceTrigger + ") OR EXISTS (SELECT 1 FROM "
                + schema
                + ".REFERENTIAL_CONSTRAINTS rc WHERE rc.UNIQUE_CONSTRAINT_SCHEMA = " + tableSchema
                + " AND " + (schema.equals("information_schema") ? "rc.REFERENCED_TABLE_NAME = " + tableName
                : "rc.UNIQUE_CONSTRAINT_NAME IN (SELECT tc.CONSTRAINT_NAME FROM " + schema + ".TABLE_CONSTRAINTS tc"
                + " WHERE tc.TABLE_SCHEMA = " + tableSchema + " AND tc.TABLE_NAME = " + tableName + ")")
                + " AND (rc.DELETE_RULE <> 'RESTRICT' AND rc.DELETE_RULE <> 'NO ACTION'"
                + " OR rc.UPDATE_RULE <> 'RESTRICT' AND rc.UPDATE_RULE <> 'NO ACTION'))" + h2 + ")";
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
                return new Resolved(table, "BASE TABLE".equals(type) ? "table" : type.toLowerCase(Locale.ROOT),
                        rs.getBoolean(2));
            }
        }
    }
}
