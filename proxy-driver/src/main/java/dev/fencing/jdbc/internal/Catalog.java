package dev.fencing.jdbc.internal;

import dev.fencing.jdbc.FencingProperty;
import dev.fencing.sql.Analysis;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The questions one connection asks its database's catalog instead of trusting names in SQL text (SPEC C9): does a
 * statement call a function that may write, is a write's target the very table configured as exempt, and does a
 * write reach only temporary tables of the session.
 */
final class Catalog {
    /**
     * PostgreSQL built-ins (in {@code pg_catalog}) that are volatile yet change no table: randomness, clocks,
     * sleeping, session settings, advisory locks, notifications (like {@code NOTIFY}), sizes, the
     * {@code TABLESAMPLE} methods, and sequences read or advanced by {@code nextval} (a documented limit: a stale
     * owner can still consume sequence values). {@code setval} is not among them.
     */
    static final Set<String> HARMLESS_POSTGRES = Set.of("random", "setseed", "clock_timestamp", "timeofday",
            "gen_random_uuid", "pg_sleep", "pg_sleep_for", "pg_sleep_until", "nextval", "currval", "lastval",
            "set_config", "pg_is_in_recovery", "pg_relation_size", "pg_total_relation_size", "pg_table_size",
            "pg_indexes_size", "pg_database_size", "pg_advisory_lock", "pg_advisory_lock_shared",
            "pg_advisory_xact_lock", "pg_advisory_xact_lock_shared", "pg_try_advisory_lock",
            "pg_try_advisory_lock_shared", "pg_try_advisory_xact_lock", "pg_try_advisory_xact_lock_shared",
            "pg_advisory_unlock", "pg_advisory_unlock_shared", "pg_advisory_unlock_all", "pg_notify", "system",
            "bernoulli");

    /**
     * Parameters: a table name, and whether it was qualified. One row when the name means a plain temporary table
     * of this session on which nothing can run code (see {@link #sessionTemporary}).
     */
    private static final String SESSION_TEMPORARY =
            "SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid = pg_catalog.to_regclass(?)"
            + " AND (? OR (pg_catalog.current_schemas(true))[1] OPERATOR(pg_catalog.=) (SELECT n.nspname"
            + " FROM pg_catalog.pg_namespace n WHERE n.oid OPERATOR(pg_catalog.=) pg_catalog.pg_my_temp_schema()))"
            + " AND c.relnamespace OPERATOR(pg_catalog.=) pg_catalog.pg_my_temp_schema() AND c.relkind = 'r'"
            + " AND c.relpersistence = 't' AND NOT c.relhastriggers AND NOT c.relhasrules AND NOT c.relhassubclass"
            // an index's expression or predicate, an exclusion or check constraint, and a row-security policy
            // run functions on every write (found by review: an IMMUTABLE index function that writes elsewhere)
            + " AND NOT c.relrowsecurity"
            + " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid"
            + " AND (i.indexprs IS NOT NULL OR i.indpred IS NOT NULL))"
            // an index of a user-defined operator class calls its support functions on every write
            + " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i, pg_catalog.unnest(CAST(i.indclass AS oid[])) k"
            + " JOIN pg_catalog.pg_opclass oc ON oc.oid = k WHERE i.indrelid = c.oid"
            + " AND oc.opcnamespace <> 'pg_catalog'::pg_catalog.regnamespace)"
            + " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint co WHERE co.conrelid = c.oid"
            + " AND co.contype IN ('c', 'x', 't'))"
            // an operator in a default is a function call too
            + " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_operator o"
            + " ON d.refclassid = 'pg_catalog.pg_operator'::pg_catalog.regclass AND o.oid = d.refobjid"
            + " WHERE d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass"
            + " AND d.objid IN (SELECT ad.oid FROM pg_catalog.pg_attrdef ad WHERE ad.adrelid = c.oid)"
            + " AND o.oprnamespace <> 'pg_catalog'::pg_catalog.regnamespace)"
            + " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t"
            + " ON t.oid = a.atttypid WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
            // any type outside pg_catalog: a domain, an array of one, a composite holding one (found by review)
            + " AND t.typnamespace <> 'pg_catalog'::pg_catalog.regnamespace)"
            + " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_proc p"
            + " ON d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND p.oid = d.refobjid"
            + " WHERE (d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass"
            + " AND d.objid IN (SELECT ad.oid FROM pg_catalog.pg_attrdef ad WHERE ad.adrelid = c.oid)"
            + " OR d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass"
            + " AND d.objid IN (SELECT co.oid FROM pg_catalog.pg_constraint co WHERE co.conrelid = c.oid))"
            + " AND (p.pronamespace <> 'pg_catalog'::pg_catalog.regnamespace OR p.provolatile = 'v'"
            + " AND p.proname NOT IN ('" + String.join("', '", HARMLESS_POSTGRES) + "')))";

    /** H2 built-ins that write: linked tables, files. Every user-defined H2 function counts as writing too. */
    static final Set<String> WRITING_H2 = Set.of("LINK_SCHEMA", "CSVWRITE", "FILE_WRITE");
    /** MariaDB built-ins that write; every stored function counts as writing too. */
    static final Set<String> WRITING_MARIADB = Set.of("SETVAL");

    /** How many function names a connection remembers; when full it starts over. */
    private static final int MAX_REMEMBERED = 4096;
    private static final Pattern PLAIN_NAME = Pattern.compile("[\\p{L}_][\\p{L}\\p{N}_$]*");
    private static final Pattern QUOTED_NAME = Pattern.compile("\"(?:[^\"]|\"\")+\"");

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
    /** Function name, as the analyzer reported it, to whether some function of that name may write. */
    private final Map<String, Boolean> writes = new HashMap<>();
    /** Own names (lower-cased) this connection created temporary tables under; see {@link #writesOnlyTemporaryTables}. */
    private final Set<String> temporaryNames = new HashSet<>();

    private Catalog(Connection raw, Dialect dialect) {
        this.raw = raw;
        this.dialect = dialect;
    }

    /**
     * Resolves the configured exempt tables the way this connection's database resolves a name (schema, case).
     *
     * @throws SQLException {@link dev.fencing.jdbc.FencingSqlState#CONFIGURATION} when one is a view or another
     *                      object that is not a plain table, or the database is one the driver cannot ask
     */
    static Catalog open(Connection raw, Dialect dialect, List<EpochTable> exemptTables) throws SQLException {
        Catalog catalog = new Catalog(raw, dialect);
        if (!exemptTables.isEmpty() && dialect == Dialect.GENERIC) {
            throw Settings.configuration(FencingProperty.EXEMPT.getName() + " needs a database whose catalog the"
                    + " driver can ask (PostgreSQL, H2, MariaDB)");
        }
        for (EpochTable table : exemptTables) {
            catalog.exemptNames.add(table.simpleName());
            if (!catalog.resolveExempt(table, true)) {
                catalog.unresolved.add(table);
            }
        }
        return catalog;
    }

    /**
     * Whether a statement must run guarded although the analyzer did not ask for it, or may skip the guard it
     * asked for: a query or setting that calls a function that may write needs the guard; a mutation is exempt
     * only when it only changes data, every target is the configured exempt table itself as the database resolves
     * it, and it calls no writing function. DDL and calls also forget what is known about functions.
     */
    synchronized boolean needsGuard(Analysis analysis) throws SQLException {
        switch (analysis.kind()) {
            case READ_ONLY:
            case SESSION_SETTING:
                return callsWritingFunction(analysis.calledFunctions());
            case MUTATION:
                if (!analysis.changesDataOnly()) {
                    writes.clear();
                    return true;
                }
                return !exempt(analysis) || callsWritingFunction(analysis.calledFunctions());
            default:
                return false;
        }
    }

    // ---- temporary tables ---------------------------------------------------------------------------------

    /** A name this connection created a temporary table under: the cheap test before any catalog question. */
    synchronized void createdTemporaryTable(String name) {
        if (name != null && dialect == Dialect.POSTGRESQL) {
            if (temporaryNames.size() >= MAX_REMEMBERED) {
                temporaryNames.clear();
            }
            temporaryNames.add(name);
        }
    }

    /**
     * Whether a data change writes only temporary tables of this session (PostgreSQL), which no other session can
     * see: every target is a name this connection created a temporary table under, and the database, asked now with
     * the session's search path, resolves every written reference to a plain table in this session's temporary
     * schema that has no triggers, rules or children, no column of a domain type, and no default or constraint that
     * calls a function outside {@code pg_catalog} or a volatile one that may write; and the statement calls no
     * function that may write (issue 11, item 3).
     */
    synchronized boolean writesOnlyTemporaryTables(Analysis analysis) throws SQLException {
        if (dialect != Dialect.POSTGRESQL || !analysis.changesDataOnly() || analysis.isOpaque()
                || analysis.targetTables().isEmpty() || !temporaryNames.containsAll(analysis.targetTables())
                || analysis.targetReferences().isEmpty()) {
            return false;
        }
        for (List<String> reference : analysis.targetReferences()) {
            boolean qualified = reference.size() == 2;
            if (reference.size() > 2 || qualified && !reference.get(0).equalsIgnoreCase("pg_temp")
                    && !reference.get(0).equals("\"pg_temp\"") || !sessionTemporary(String.join(".", reference), qualified)) {
                return false;
            }
        }
        return !callsWritingFunction(analysis.calledFunctions());
    }

    /**
     * Whether {@code name} means a temporary table of this session with nothing that could write elsewhere. An
     * unqualified name counts only while the session's temporary schema comes first in its search path: then no
     * table another session creates meanwhile can take the name over before the statement runs.
     */
    private boolean sessionTemporary(String name, boolean qualified) throws SQLException {
        try (PreparedStatement ps = raw.prepareStatement(SESSION_TEMPORARY)) {
            ps.setString(1, name);
            ps.setBoolean(2, qualified);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    // ---- functions ----------------------------------------------------------------------------------------

    private boolean callsWritingFunction(List<String> names) throws SQLException {
        if (names.isEmpty() || dialect == Dialect.GENERIC) {
            return false;
        }
        List<String> unknown = new ArrayList<>();
        for (String name : names) {
            Boolean known = writes.get(name);
            if (known == null) {
                unknown.add(name);
            } else if (known) {
                return true;
            }
        }
        if (unknown.isEmpty()) {
            return false;
        }
        Set<String> writing = writingFunctions(unknown);
        if (writes.size() + unknown.size() > MAX_REMEMBERED) {
            writes.clear();
        }
        boolean any = false;
        for (String name : unknown) {
            boolean w = name.isEmpty() || writing.contains(key(name)) || writing.contains(name);
            writes.put(name, w);
            any |= w;
        }
        return any;
    }

    /**
     * Which of {@code names} the catalog knows as a function that may write, in one question. Matched loosely
     * (PostgreSQL: as written and lower-cased; H2, MariaDB: case-insensitively) and in every schema: a name
     * matching more than the server would call only asks for a token more often.
     */
    private Set<String> writingFunctions(List<String> names) throws SQLException {
        Set<String> candidates = new LinkedHashSet<>();
        Set<String> found = new HashSet<>();
        for (String name : names) {
            if (name.isEmpty()) {
                continue;
            }
            candidates.add(name);
            candidates.add(key(name));
            if (dialect == Dialect.H2 && WRITING_H2.contains(key(name))
                    || dialect == Dialect.MARIADB && WRITING_MARIADB.contains(key(name))) {
                found.add(key(name));
            }
        }
        if (candidates.isEmpty()) {
            return found;
        }
        String markers = String.join(", ", Collections.nCopies(candidates.size(), "?"));
        String sql;
        switch (dialect) {
            case POSTGRESQL:
                sql = "SELECT DISTINCT p.proname FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n"
                        + " ON n.oid = p.pronamespace WHERE p.proname IN (" + markers + ")"
                        + " AND NOT (n.nspname = 'pg_catalog' AND p.proname IN ('"
                        + String.join("', '", HARMLESS_POSTGRES) + "'))"
                        + " AND (n.nspname NOT IN ('pg_catalog', 'information_schema') OR p.provolatile = 'v'"
                        + " OR EXISTS (SELECT 1 FROM pg_catalog.pg_aggregate a"
                        + " JOIN pg_catalog.pg_proc f ON f.oid IN (a.aggtransfn, a.aggfinalfn, a.aggcombinefn,"
                        + " a.aggserialfn, a.aggdeserialfn, a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn)"
                        + " WHERE a.aggfnoid = p.oid AND f.provolatile = 'v'))";
                break;
            case H2:
                sql = "SELECT DISTINCT UPPER(ROUTINE_NAME) FROM INFORMATION_SCHEMA.ROUTINES"
                        + " WHERE UPPER(ROUTINE_NAME) IN (" + markers + ")";
                break;
            default:
                // every kind of routine: a package (Oracle mode's pkg.f()) counts for the functions it holds
                sql = "SELECT DISTINCT UPPER(ROUTINE_NAME) FROM information_schema.ROUTINES"
                        + " WHERE UPPER(ROUTINE_NAME) IN (" + markers + ")" + dialect.allRows();
                break;
        }
        try (PreparedStatement ps = raw.prepareStatement(sql)) {
            int i = 1;
            for (String candidate : candidates) {
                ps.setString(i++, candidate);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.add(rs.getString(1));
                }
            }
        }
        return found;
    }

    /**
     * A name as the catalog stores it when written unquoted: PostgreSQL folds ASCII letters to lower case; H2
     * and MariaDB are compared upper-cased.
     */
    private String key(String name) {
        if (dialect != Dialect.POSTGRESQL) {
            return name.toUpperCase(Locale.ROOT);
        }
        StringBuilder folded = new StringBuilder(name.length());
        for (char c : name.toCharArray()) {
            folded.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c);
        }
        return folded.toString();
    }

    // ---- exempt tables ------------------------------------------------------------------------------------

    /**
     * Whether every target of a data change is a configured exempt table: first by name in the text (free), then,
     * only when all match, by asking the database which table each written reference means.
     */
    private boolean exempt(Analysis analysis) throws SQLException {
        if (analysis.targetTables().isEmpty() || !exemptNames.containsAll(analysis.targetTables())
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
            if (!PLAIN_NAME.matcher(part).matches() && !QUOTED_NAME.matcher(part).matches()) {
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
