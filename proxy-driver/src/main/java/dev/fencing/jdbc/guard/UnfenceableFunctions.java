package dev.fencing.jdbc.guard;

import dev.fencing.sql.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which called functions do work no guard can cover, as one connection's catalog says (SPEC C10): on PostgreSQL the
 * functions of the extensions that open other sessions ({@code dblink}, {@code pg_background}), whose work commits
 * on its own and may outlive the guard's transaction; on H2 Java functions that take a {@code Connection} and user
 * aggregates (whose {@code init} gets one), which can commit the guard's transaction. Remembered per connection until
 * DDL, like {@link WritingFunctions}.
 */
final class UnfenceableFunctions {
    /** Extensions whose functions open other sessions or start background workers. */
    private static final List<String> SESSION_EXTENSIONS = List.of("dblink", "pg_background");
    /**
     * PostgreSQL: a function of that name, in the libraries or extensions of {@link #SESSION_EXTENSIONS}, or named
     * like one of their functions (a copy made by hand, or a renamed one, is the same code).
     */
    private static final String POSTGRES = "SELECT DISTINCT p.proname FROM pg_catalog.pg_proc p WHERE p.proname IN (%s)"
            + " AND (p.proname LIKE 'dblink%%' OR p.proname LIKE 'pg\\_background%%'"
            + " OR p.probin IN ('$libdir/dblink', '$libdir/pg_background')"
            + " OR EXISTS (SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid"
            + " WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = p.oid"
            + " AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.deptype = 'e'"
            + " AND e.extname IN ('" + String.join("', '", SESSION_EXTENSIONS) + "')))";
    /** H2: the user functions and aggregates of those names, in every schema. */
    private static final String H2 = "SELECT ROUTINE_SCHEMA, ROUTINE_NAME, ROUTINE_TYPE FROM INFORMATION_SCHEMA.ROUTINES"
            + " WHERE UPPER(ROUTINE_NAME) IN (%s)";
    private static final int MAX_REMEMBERED = 4096;

    private final Connection raw;
    private final Dialect dialect;
    /** Function name, as the analyzer reported it, to whether some function of that name is unfenceable. */
    private final Map<String, Boolean> known = new HashMap<>();

    UnfenceableFunctions(Connection raw, Dialect dialect) {
        this.raw = raw;
        this.dialect = dialect;
    }

    void forget() {
        known.clear();
    }

    /**
     * The first of {@code names} that is an unfenceable function here, or null; "" (a name spelt with Unicode
     * escapes, which nobody can look up) counts as one.
     */
    String first(List<String> names) throws SQLException {
        if (names.isEmpty() || dialect != Dialect.POSTGRESQL && dialect != Dialect.H2) {
            return null;
        }
        Set<String> unknown = new LinkedHashSet<>();
        for (String name : names) {
            Boolean answer = known.get(name);
            if (name.isEmpty()) {
                return name;
            }
            if (answer == null) {
                unknown.add(name);
            } else if (answer != null && answer) {
                return name;
            }
        }
        if (unknown.isEmpty()) {
            return null;
        }
        Set<String> found = dialect == Dialect.POSTGRESQL ? postgres(unknown) : h2(unknown);
        if (known.size() + unknown.size() > MAX_REMEMBERED) {
            known.clear();
        }
        String first = null;
        for (String name : unknown) {
            boolean unfenceable = found.contains(name) || found.contains(WritingFunctions.key(dialect, name));
            known.put(name, unfenceable);
            if (unfenceable && first == null) {
                first = name;
            }
        }
        return first;
    }

    private Set<String> postgres(Set<String> names) throws SQLException {
        Set<String> candidates = new LinkedHashSet<>();
        for (String name : names) {
            candidates.add(name);
            candidates.add(WritingFunctions.key(dialect, name));
        }
        Set<String> found = new LinkedHashSet<>();
        try (PreparedStatement ps = raw.prepareStatement(String.format(POSTGRES, markers(candidates.size())))) {
            bind(ps, candidates);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.add(rs.getString(1));
                }
            }
        }
        return found;
    }

    private Set<String> h2(Set<String> names) throws SQLException {
        Set<String> candidates = new LinkedHashSet<>();
        for (String name : names) {
            candidates.add(WritingFunctions.key(dialect, name));
        }
        Set<String> found = new LinkedHashSet<>();
        try (PreparedStatement ps = raw.prepareStatement(String.format(H2, markers(candidates.size())))) {
            bind(ps, candidates);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(2);
                    if ("AGGREGATE".equals(rs.getString(3))
                            || H2JavaFunctions.mayTakeConnection(raw, rs.getString(1), name)) {
                        found.add(WritingFunctions.key(dialect, name));
                    }
                }
            }
        }
        return found;
    }

    private static String markers(int count) {
        return String.join(", ", Collections.nCopies(count, "?"));
    }

    private static void bind(PreparedStatement ps, Set<String> values) throws SQLException {
        int i = 1;
        for (String value : values) {
            ps.setString(i++, value);
        }
    }
}
