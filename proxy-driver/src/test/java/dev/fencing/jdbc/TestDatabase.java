package dev.fencing.jdbc;

import org.junit.jupiter.api.Assumptions;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The databases the tests run against. PostgreSQL's URL comes from the system property
 * {@code fencing.test.pg.url} (set by the Maven build); without a reachable server the PostgreSQL tests are
 * skipped with a notice, except under {@code CI=true}, where they fail.
 */
public enum TestDatabase {
    H2, POSTGRESQL;

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static Boolean postgresReachable;
    private static String unreachableBecause;

    /** The raw (underlying) URL of a database for one test class. */
    public String rawUrl() {
        if (this == H2) {
            return "jdbc:h2:mem:fencing" + NAMES.incrementAndGet() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
        }
        requirePostgres();
        return pgUrl();
    }

    /**
     * The same database through the fencing driver, with settings appended in the URL's style; values must be
     * URL-encoded for PostgreSQL URLs (query style) and are taken as written for H2 ({@code ;} style).
     */
    public static String fenced(String rawUrl, String... settings) {
        StringBuilder url = new StringBuilder("jdbc:fencing:").append(rawUrl.substring("jdbc:".length()));
        boolean query = rawUrl.startsWith("jdbc:postgresql:");
        for (String setting : settings) {
            if (query) {
                url.append(url.indexOf("?") < 0 ? '?' : '&').append(setting);
            } else {
                url.append(';').append(setting);
            }
        }
        return url.toString();
    }

    public static String pgUrl() {
        return System.getProperty("fencing.test.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    }

    /**
     * Whether the PostgreSQL server answers; asked once per test JVM, and the first "no" prints the one notice of
     * the run. Under {@code CI=true} an unreachable server is an error, never a skip.
     */
    public static synchronized boolean postgresReachable() {
        if (postgresReachable == null) {
            try (Connection c = DriverManager.getConnection(pgUrl())) {
                postgresReachable = c.isValid(5);
            } catch (SQLException e) {
                postgresReachable = false;
                unreachableBecause = e.getMessage();
                if (!ci()) {
                    System.err.println("NOTICE: PostgreSQL tests skipped: no server at " + pgUrl() + " ("
                            + e.getMessage() + "). Set -Dfencing.test.pg.url=... to run them.");
                }
            }
        }
        if (!postgresReachable && ci()) {
            throw new IllegalStateException("CI=true but PostgreSQL is unreachable at " + pgUrl() + " ("
                    + unreachableBecause + ")");
        }
        return postgresReachable;
    }

    /** Skips the calling test when PostgreSQL is unreachable, unless running in CI, where that is a failure. */
    public static void requirePostgres() {
        Assumptions.assumeTrue(postgresReachable(), "PostgreSQL unreachable at " + pgUrl());
    }

    private static boolean ci() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /** Runs statements on a raw connection (autocommit). */
    public static void exec(String rawUrl, String... sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(rawUrl); Statement s = c.createStatement()) {
            for (String each : sql) {
                s.execute(each);
            }
        }
    }

    /**
     * Drops what a test created under the unique name {@code name} (from {@link #unique}): on PostgreSQL every
     * schema, table, view, sequence and routine named {@code name} or {@code name_...}, in any case; on H2, whose in-memory
     * database is the test's own, everything. Epoch rows stay: the database refuses to delete marks.
     */
    public static void dropNamed(String rawUrl, String name) throws SQLException {
        if (!rawUrl.startsWith("jdbc:postgresql:")) {
            exec(rawUrl, "DROP ALL OBJECTS");
            return;
        }
        String exact = name.toLowerCase(java.util.Locale.ROOT);
        String prefixed = exact.replace("_", "\\_") + "\\_%";
        String matches = " = ? OR lower(%1$s) LIKE ? ESCAPE '\\'";
        java.util.List<String> drops = new java.util.ArrayList<>();
        try (Connection c = DriverManager.getConnection(rawUrl)) {
            collect(c, drops, "SELECT 'DROP SCHEMA IF EXISTS ' || quote_ident(nspname) || ' CASCADE' FROM pg_namespace"
                    + " WHERE lower(nspname)" + String.format(matches, "nspname"), exact, prefixed);
            collect(c, drops, "SELECT 'DROP ' || CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'"
                    + " WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END || ' IF EXISTS ' || quote_ident(n.nspname) || '.' || quote_ident(c.relname)"
                    + " || ' CASCADE' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                    + " WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND (lower(c.relname)"
                    + String.format(matches, "c.relname") + ")", exact, prefixed);
            collect(c, drops, "SELECT 'DROP ' || CASE p.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE'"
                    + " ELSE 'FUNCTION' END || ' IF EXISTS ' || p.oid::regprocedure::text || ' CASCADE'"
                    + " FROM pg_proc p WHERE lower(p.proname)" + String.format(matches, "p.proname"), exact, prefixed);
            try (Statement s = c.createStatement()) {
                for (String drop : drops) {
                    s.execute(drop);
                }
            }
        }
    }

    private static void collect(Connection c, java.util.List<String> drops, String query, String exact,
                                String prefixed) throws SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement(query)) {
            ps.setString(1, exact);
            ps.setString(2, prefixed);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    drops.add(rs.getString(1));
                }
            }
        }
    }

    /** A name unique in this JVM run, for tables and resources shared on the PostgreSQL server. */
    public static String unique(String prefix) {
        return prefix + "_" + ProcessHandle.current().pid() + "_" + NAMES.incrementAndGet();
    }
}
