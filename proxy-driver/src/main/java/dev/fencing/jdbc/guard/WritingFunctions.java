package dev.fencing.jdbc.guard;

import dev.fencing.sql.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Whether a statement calls a function that may write, as one connection's database catalog says (SPEC C9): the
 * analyzer only reports names; the catalog decides, and the answers are remembered per connection until DDL.
 */
final class WritingFunctions {
    /**
     * PostgreSQL built-ins (in {@code pg_catalog}) that are volatile yet change no table: randomness, clocks,
     * sleeping, session settings, releasing advisory locks, notifications (like {@code NOTIFY}), sizes, the
     * {@code TABLESAMPLE} methods, and sequences read by {@code currval} and {@code lastval}. Not among them:
     * {@code nextval} and {@code setval}, which change a sequence (the server refuses them in read-only work, SPEC
     * C10, so a current owner's {@code nextval} is guarded like a write), and the functions that take an advisory
     * lock: one could take the fence's own key and hold every advance of the mark off, so they need a current token.
     */
    static final Set<String> HARMLESS_POSTGRES = Set.of("random", "setseed", "clock_timestamp", "timeofday",
            "gen_random_uuid", "pg_sleep", "pg_sleep_for", "pg_sleep_until", "currval", "lastval",
            "set_config", "pg_is_in_recovery", "pg_relation_size", "pg_total_relation_size", "pg_table_size",
            "pg_indexes_size", "pg_database_size", "pg_advisory_unlock", "pg_advisory_unlock_shared", "pg_advisory_unlock_all", "pg_notify", "system",
            "bernoulli");

    /**
     * H2 built-ins that write: linked tables, files, and ending or cancelling another session (which rolls back a new
     * owner's work). Every user-defined H2 function counts as writing too.
     */
    static final Set<String> WRITING_H2 = Set.of("LINK_SCHEMA", "CSVWRITE", "FILE_WRITE", "ABORT_SESSION",
            "CANCEL_SESSION");
    /** MariaDB built-ins that write (a sequence); every stored function counts as writing too. */
    static final Set<String> WRITING_MARIADB = Set.of("SETVAL", "NEXTVAL");

    /** How many function names a connection remembers; when full it starts over. */
    private static final int MAX_REMEMBERED = 4096;

    private final Connection raw;
    private final Dialect dialect;
    /** Function name, as the analyzer reported it, to whether some function of that name may write. */
    private final Map<String, Boolean> writes = new HashMap<>();

    WritingFunctions(Connection raw, Dialect dialect) {
        this.raw = raw;
        this.dialect = dialect;
    }

    /**
     * PostgreSQL built-ins that are not immutable yet run no query of their own: clocks, formatting, settings, JSON
     * building. Any other built-in that is not immutable may run SQL it is given ({@code table_to_xml('v', ...)},
     * {@code query_to_xml}, {@code ts_stat}, found by review), so a write that lifts read-only mode without the guard
     * (to an exempt or temporary table) may not call it; a name missing here only makes such a write need a token.
     */
    static final Set<String> PLAIN_POSTGRES = Set.of("now", "statement_timestamp", "transaction_timestamp",
            "clock_timestamp", "timeofday", "to_char", "to_date", "to_timestamp", "to_number", "age", "date_trunc",
            "date_part", "timezone", "make_timestamptz", "concat", "concat_ws", "format", "current_setting",
            "current_database", "current_schema", "pg_backend_pid", "version", "txid_current", "pg_current_xact_id",
            "to_json", "to_jsonb", "json_build_object", "jsonb_build_object", "json_build_array",
            "jsonb_build_array", "row_to_json", "random", "gen_random_uuid", "inet_client_addr", "length", "date",
            "extract", "format_type", "generate_series", "pg_typeof", "quote_literal");

    /** Function name, as the analyzer reported it, to whether some built-in of that name may run a query. */
    private final Map<String, Boolean> queries = new HashMap<>();
    /** Type name, as the analyzer reported it, to whether some user type or domain has that name. */
    private final Map<String, Boolean> userTypes = new HashMap<>();

    /** DDL or a call may have created or replaced functions: nothing remembered holds any more. */
    void forget() {
        writes.clear();
        queries.clear();
        userTypes.clear();
    }

    /**
     * PostgreSQL: whether any of {@code names} is a built-in that may run a query of its own (not immutable, and not
     * one of {@link #PLAIN_POSTGRES}); elsewhere false (every user function already counts as writing there).
     */
    boolean anyMayRunQueries(List<String> names) throws SQLException {
        if (dialect != Dialect.POSTGRESQL) {
            return false;
        }
        return any(names, queries, unknown -> ask("SELECT DISTINCT p.proname FROM pg_catalog.pg_proc p JOIN"
                + " pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE p.proname IN (%s)"
                + " AND n.nspname IN ('pg_catalog', 'information_schema') AND p.provolatile <> 'i'"
                + " AND p.proname NOT IN ('" + String.join("', '", PLAIN_POSTGRES) + "')", candidates(unknown)));
    }

    /**
     * PostgreSQL: whether any of {@code names} (types a statement casts to) is a type or domain outside
     * {@code pg_catalog} and {@code information_schema}, whose cast function, input function or {@code CHECK} is
     * user code that may write (found by review: a domain whose CHECK calls a writing function, cast to in an
     * exempt write); elsewhere false.
     */
    boolean anyUserType(List<String> names) throws SQLException {
        if (dialect != Dialect.POSTGRESQL) {
            return false;
        }
        return any(names, userTypes, unknown -> ask("SELECT DISTINCT t.typname FROM pg_catalog.pg_type t JOIN"
                + " pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE t.typname IN (%s)"
                + " AND n.nspname NOT IN ('pg_catalog', 'information_schema')", candidates(unknown)));
    }

    /** Whether any of {@code names} (as the analyzer reported them; "" for a call it could not name) may write. */
    boolean anyWrites(List<String> names) throws SQLException {
        if (dialect == Dialect.GENERIC) {
            return false;
        }
        return any(names, writes, this::writingFunctions);
    }

    /** One catalog question about several names at once: the names (as the catalog stores them) it found. */
    private interface Question {
        Set<String> found(List<String> unknown) throws SQLException;
    }

    /**
     * Whether any of {@code names} has the property {@code remembered} holds answers for, asking {@code question}
     * once about those not remembered yet ("" for a call the analyzer could not name counts as having it).
     */
    private boolean any(List<String> names, Map<String, Boolean> remembered, Question question) throws SQLException {
        if (names.isEmpty()) {
            return false;
        }
        List<String> unknown = new ArrayList<>();
        for (String name : names) {
            Boolean known = remembered.get(name);
            if (known == null) {
                unknown.add(name);
            } else if (known) {
                return true;
            }
        }
        if (unknown.isEmpty()) {
            return false;
        }
        Set<String> found = question.found(unknown);
        if (remembered.size() + unknown.size() > MAX_REMEMBERED) {
            remembered.clear();
        }
        boolean any = false;
        for (String name : unknown) {
            boolean has = name.isEmpty() || found.contains(key(dialect, name)) || found.contains(name);
            remembered.put(name, has);
            any |= has;
        }
        return any;
    }

    /** Each name as written and as the catalog stores it unquoted, blanks left out. */
    private Set<String> candidates(List<String> names) {
        Set<String> candidates = new LinkedHashSet<>();
        for (String name : names) {
            if (!name.isEmpty()) {
                candidates.add(name);
                candidates.add(key(dialect, name));
            }
        }
        return candidates;
    }

    /** Runs {@code sql} with one {@code ?} per candidate in place of {@code %s}; the first column of each row. */
    private Set<String> ask(String sql, Set<String> candidates) throws SQLException {
        Set<String> found = new HashSet<>();
        if (candidates.isEmpty()) {
            return found;
        }
        try (PreparedStatement ps = raw.prepareStatement(String.format(sql,
                String.join(", ", Collections.nCopies(candidates.size(), "?"))))) {
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
     * Which of {@code names} the catalog knows as a function that may write, in one question. Matched loosely
     * (PostgreSQL: as written and lower-cased; H2, MariaDB: case-insensitively) and in every schema: a name
     * matching more than the server would call only asks for a token more often.
     */
    private Set<String> writingFunctions(List<String> names) throws SQLException {
        Set<String> known = new HashSet<>();
        for (String name : names) {
            if (dialect == Dialect.H2 && WRITING_H2.contains(key(dialect, name))
                    || dialect == Dialect.MARIADB && WRITING_MARIADB.contains(key(dialect, name))) {
                known.add(key(dialect, name));
            }
        }
        String sql;
        switch (dialect) {
            case POSTGRESQL:
                sql = "SELECT DISTINCT p.proname FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n"
                        + " ON n.oid = p.pronamespace WHERE p.proname IN (%s)"
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
                        + " WHERE UPPER(ROUTINE_NAME) IN (%s)";
                break;
            default:
                // every kind of routine: a package (Oracle mode's pkg.f()) counts for the functions it holds
                sql = "SELECT DISTINCT UPPER(ROUTINE_NAME) FROM information_schema.ROUTINES"
                        + " WHERE UPPER(ROUTINE_NAME) IN (%s)" + dialect.allRows();
                break;
        }
        Set<String> found = ask(sql, candidates(names));
        found.addAll(known);
        return found;
    }

    /**
     * A name as the catalog stores it when written unquoted: PostgreSQL folds ASCII letters to lower case; H2
     * and MariaDB are compared upper-cased.
     */
    static String key(Dialect dialect, String name) {
        if (dialect != Dialect.POSTGRESQL) {
            return name.toUpperCase(Locale.ROOT);
        }
        StringBuilder folded = new StringBuilder(name.length());
        for (char c : name.toCharArray()) {
            folded.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c);
        }
        return folded.toString();
    }
}
