package dev.fencing.jdbc.guard;

import dev.fencing.sql.Analysis;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The questions one connection asks its database's catalog instead of trusting names in SQL text (SPEC C9): does a
 * statement call a function that may write, is a write's target the very table configured as exempt, and does a
 * write reach only temporary tables of the session.
 */
public final class Catalog {
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
            + " AND p.proname NOT IN ('" + String.join("', '", WritingFunctions.HARMLESS_POSTGRES) + "')))";

    /** How many temporary-table names a connection remembers; when full it starts over. */
    private static final int MAX_REMEMBERED = 4096;

    private final Connection raw;
    private final Dialect dialect;
    private final WritingFunctions functions;
    private final UnfenceableFunctions unfenceable;
    private final ExemptTables exempt;
    private final ResourceMap resources;
    /** Own names (lower-cased) this connection created temporary tables under; see {@link #writesOnlyTemporaryTables}. */
    private final Set<String> temporaryNames = new HashSet<>();

    private Catalog(Connection raw, Dialect dialect, ExemptTables exempt, ResourceMap resources) {
        this.resources = resources;
        this.raw = raw;
        this.dialect = dialect;
        this.functions = new WritingFunctions(raw, dialect);
        this.unfenceable = new UnfenceableFunctions(raw, dialect);
        this.exempt = exempt;
    }

    /** The catalog of one connection, with the configured exempt tables resolved (see {@link ExemptTables#open}). */
    public static Catalog open(Connection raw, Dialect dialect, List<EpochTable> exemptTables, ResourceMap resources)
            throws SQLException {
        return new Catalog(raw, dialect, ExemptTables.open(raw, dialect, exemptTables), resources);
    }

    /**
     * Whether any table is mapped to a resource (SPEC C11): when none is, every mutation needs the connection's own
     * resource only, and {@link #resourcesOf} need not be asked.
     */
    public boolean mapsTables() {
        return !resources.isEmpty();
    }

    /**
     * The resources a mutation needs a current token for (SPEC C11), {@code primary} standing for unmapped tables:
     * see {@link ResourceMap#resourcesOf}. {@code analysis} is {@code null} for a write the driver cannot name.
     */
    public synchronized java.util.Set<String> resourcesOf(Analysis analysis, String primary) throws SQLException {
        if (analysis != null && !resources.isEmpty() && functions.anyWrites(analysis.calledFunctions())) {
            // a function that may write reaches tables the text does not name (found by review): every resource
            return resources.resourcesOf(null, primary);
        }
        return resources.resourcesOf(analysis, primary);
    }

    /**
     * Whether a statement must run guarded although the analyzer did not ask for it, or may skip the guard it
     * asked for: a query or setting that calls a function that may write needs the guard; a mutation is exempt
     * only when it only changes data, every target is the configured exempt table itself as the database resolves
     * it, and it calls no writing function. DDL and calls also forget what is known about functions.
     */
    public synchronized boolean needsGuard(Analysis analysis) throws SQLException {
        return needsGuard(analysis, () -> true);
    }

    /** Whether a write let through without a guard would run unlocked (asked only when it matters). */
    public interface Unlocked {
        boolean now() throws SQLException;
    }

    /**
     * {@link #needsGuard(Analysis)}; {@code unlocked}: an exempt write would run in a read-write transaction the
     * driver opens without the guard's lock (auto-commit, or not known yet because the statement runs later), so it
     * may read no other relation and call no built-in that runs a query: a view there may write elsewhere. Inside
     * the caller's transaction it may (the transaction was admitted under the lock, or the server keeps it
     * read-only).
     */
    public synchronized boolean needsGuard(Analysis analysis, Unlocked unlocked) throws SQLException {
        switch (analysis.kind()) {
            case READ_ONLY:
            case SESSION_SETTING:
                return functions.anyWrites(analysis.calledFunctions());
            case MUTATION:
                if (!analysis.changesDataOnly()) {
                    functions.forget();
                    unfenceable.forget();
                    return true;
                }
                if (!exempt.writesOnlyExempt(analysis, unlocked) || functions.anyWrites(analysis.calledFunctions())) {
                    return true;
                }
                return unlocked.now() && runsUserCode(analysis);
            default:
                return false;
        }
    }

    /**
     * Whether a data change the catalog found harmless by its functions may still run code that writes elsewhere:
     * a built-in that runs a query of its own, or a cast to a user type or domain (a cast function, a CHECK).
     */
    private boolean runsUserCode(Analysis analysis) throws SQLException {
        return functions.anyMayRunQueries(analysis.calledFunctions()) || functions.anyUserType(analysis.castTypes());
    }

    /** Whether {@code analysis} calls a function the catalog says may write (a stored or user function). */
    public synchronized boolean callsWritingFunction(Analysis analysis) throws SQLException {
        return functions.anyWrites(analysis.calledFunctions());
    }

    /** How many views {@link #mayWriteAfterImplicitCommit} reads before it takes the query for one that may write. */
    private static final int MAX_VIEWS = 64;

    /**
     * MariaDB/MySQL, for a statement that {@linkplain Analysis#queriesAfterImplicitCommit() commits on its own before
     * its query runs} ({@code CREATE TABLE ... SELECT}): whether that query may write, by a function it calls
     * ({@link #callsWritingFunction}) or one a view it reads calls, through views over views. The server gives each
     * view's definition ({@code information_schema.VIEWS}), which {@code analyze} reads as any text and which the
     * same question about functions then judges. A view whose definition the server does not show (no
     * {@code SHOW VIEW} privilege), that cannot be read, or more than {@value #MAX_VIEWS} views count as writing.
     */
    public synchronized boolean mayWriteAfterImplicitCommit(Analysis analysis,
                                                           java.util.function.Function<String, Analysis> analyze)
            throws SQLException {
        if (functions.anyWrites(analysis.calledFunctions())) {
            return true;
        }
        if (dialect != Dialect.MARIADB) {
            return false;
        }
        Set<String> asked = new HashSet<>();
        Set<String> seen = new HashSet<>();
        Set<String> names = new java.util.LinkedHashSet<>(analysis.readNames());
        while (!names.isEmpty()) {
            List<String> unknown = new java.util.ArrayList<>();
            for (String name : names) {
                String upper = name.toUpperCase(java.util.Locale.ROOT);
                if (asked.add(upper)) {
                    unknown.add(upper);
                }
            }
            names.clear();
            if (unknown.isEmpty()) {
                break;
            }
            try (PreparedStatement ps = raw.prepareStatement("SELECT TABLE_SCHEMA, TABLE_NAME, VIEW_DEFINITION"
                    + " FROM information_schema.VIEWS WHERE UPPER(TABLE_NAME) IN ("
                    + String.join(", ", java.util.Collections.nCopies(unknown.size(), "?")) + ")"
                    + dialect.allRows())) {
                for (int i = 0; i < unknown.size(); i++) {
                    ps.setString(i + 1, unknown.get(i));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (!seen.add(rs.getString(1) + "." + rs.getString(2))) {
                            continue;
                        }
                        String definition = rs.getString(3);
                        if (seen.size() > MAX_VIEWS || definition == null || definition.isBlank()) {
                            return true;
                        }
                        Analysis view = analyze.apply(definition);
                        if (view.kind() != dev.fencing.sql.StatementKind.READ_ONLY
                                || functions.anyWrites(view.calledFunctions())) {
                            return true;
                        }
                        names.addAll(view.readNames());
                    }
                }
            }
        }
        return false;
    }

    /**
     * A function {@code analysis} calls whose work no guard can cover (SPEC C10), or null: on PostgreSQL one of the
     * extensions that open other sessions ({@code dblink}, {@code pg_background}); on H2 a Java function taking a
     * {@code Connection}, through which it could commit the guard's transaction, or a user aggregate. See
     * {@link UnfenceableFunctions}.
     */
    public synchronized String unfenceableCall(Analysis analysis) throws SQLException {
        return unfenceable.first(analysis.calledFunctions());
    }

    // ---- temporary tables ---------------------------------------------------------------------------------

    /** A name this connection created a temporary table under: the cheap test before any catalog question. */
    public synchronized void createdTemporaryTable(String name) {
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
     * calls a function outside {@code pg_catalog} or a volatile one that may write; and the statement reads no
     * other relation (a view there may write elsewhere, found by review) and calls no function that may write
     * (issue 11, item 3).
     */
    public synchronized boolean writesOnlyTemporaryTables(Analysis analysis, Unlocked unlocked) throws SQLException {
        if (dialect != Dialect.POSTGRESQL || !analysis.changesDataOnly() || analysis.isOpaque()
                || analysis.readsRelations() && unlocked.now()
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
        return !functions.anyWrites(analysis.calledFunctions())
                && !(unlocked.now() && runsUserCode(analysis));
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
}
