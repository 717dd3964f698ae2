package dev.fencing.jdbc;

import org.junit.jupiter.api.Assumptions;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The databases the tests run against. PostgreSQL's URL comes from the system property
 * {@code fencing.test.pg.url}, MariaDB's from {@code fencing.test.mariadb.url} (both set by the Maven build);
 * {@link #MARIADB} reaches that server through MariaDB Connector/J, {@link #MYSQL} the same server through MySQL
 * Connector/J ({@code jdbc:mysql:}). When the configured server does not answer, an embedded one is started for
 * the test JVM ({@link TestServers}); when there is none at all, the tests that need it are skipped with one notice
 * per server, except under {@code CI=true}, where they fail.
 */
public enum TestDatabase {
    H2, POSTGRESQL, MARIADB, MYSQL;

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static boolean postgresNoticed;
    private static boolean mariadbNoticed;

    /** The raw (underlying) URL of a database for one test class. */
    public String rawUrl() {
        if (this == H2) {
            return "jdbc:h2:mem:fencing" + NAMES.incrementAndGet() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
        }
        if (this == MARIADB || this == MYSQL) {
            // Several statements in one text really run, so a text the fence lets through is judged by the server.
            requireMariaDb();
            String url = this == MARIADB ? mariadbUrl() : mysqlUrl();
            return url + (url.indexOf('?') < 0 ? '?' : '&') + "allowMultiQueries=true";
        }
        requirePostgres();
        return pgUrl();
    }

    /** The underlying driver's own connection type, which the fencing driver's {@code unwrap} must not hand out (C5). */
    public Class<?> vendorConnectionType() {
        switch (this) {
            case H2:
                return org.h2.jdbc.JdbcConnection.class;
            case POSTGRESQL:
                return org.postgresql.PGConnection.class;
            case MARIADB:
                return org.mariadb.jdbc.Connection.class;
            default:
                return com.mysql.cj.jdbc.JdbcConnection.class;
        }
    }

    /** The underlying driver's own statement type (C5). */
    public Class<?> vendorStatementType() {
        switch (this) {
            case H2:
                return org.h2.jdbc.JdbcStatement.class;
            case POSTGRESQL:
                return org.postgresql.PGStatement.class;
            case MARIADB:
                return org.mariadb.jdbc.Statement.class;
            default:
                return com.mysql.cj.jdbc.JdbcStatement.class;
        }
    }

    /** The underlying driver's own result-set type (C5). */
    public Class<?> vendorResultSetType() {
        switch (this) {
            case H2:
                return org.h2.jdbc.JdbcResultSet.class;
            case POSTGRESQL:
                return org.postgresql.jdbc.PgResultSet.class;
            case MARIADB:
                return org.mariadb.jdbc.client.result.Result.class;
            default:
                return com.mysql.cj.jdbc.result.ResultSetInternalMethods.class;
        }
    }

    /** Whether this is the MariaDB server, through either driver. */
    public boolean mysqlFamily() {
        return this == MARIADB || this == MYSQL;
    }

    /**
     * The same database through the fencing driver, with settings appended in the URL's style; values must be
     * URL-encoded for PostgreSQL URLs (query style) and are taken as written for H2 ({@code ;} style).
     */
    public static String fenced(String rawUrl, String... settings) {
        StringBuilder url = new StringBuilder("jdbc:fencing:").append(rawUrl.substring("jdbc:".length()));
        boolean query = rawUrl.startsWith("jdbc:postgresql:") || rawUrl.startsWith("jdbc:mariadb:")
                || rawUrl.startsWith("jdbc:mysql:");
        for (String setting : settings) {
            if (query) {
                url.append(url.indexOf("?") < 0 ? '?' : '&').append(setting);
            } else {
                url.append(';').append(setting);
            }
        }
        return url.toString();
    }

    /**
     * Runs the {@code fencing} command against {@code rawUrl} with a test's own epoch and lease tables; returns what it
     * printed, asserting its exit code.
     */
    public static String cli(int exit, String rawUrl, String epochTable, String leaseTable, String... args) {
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(args));
        all.addAll(1, java.util.List.of("--url", rawUrl, "--epoch-table", epochTable, "--lease-table", leaseTable));
        int code = dev.fencing.jdbc.cli.FencingCli.run(new java.io.PrintWriter(out, true),
                new java.io.PrintWriter(err, true), all.toArray(String[]::new));
        org.junit.jupiter.api.Assertions.assertEquals(exit, code, "fencing " + String.join(" ", args) + ": " + out + err);
        return out + err.toString();
    }

    /** A connection through the fencing driver with {@code settings}, holding {@code token} as its connection token. */
    public static java.sql.Connection fencedAt(long token, String rawUrl, String... settings)
            throws java.sql.SQLException {
        java.sql.Connection c = java.sql.DriverManager.getConnection(fenced(rawUrl, settings));
        c.unwrap(FencedConnection.class).setFencingToken(token);
        return c;
    }

    /**
     * The PostgreSQL server's URL: the machine's ({@code fencing.test.pg.url}) when it answers, else an embedded
     * server's started for this JVM ({@link TestServers}); the configured URL when neither is there.
     */
    public static String pgUrl() {
        TestServers.Server server = TestServers.postgres();
        return server.available() ? server.url() : TestServers.configuredPgUrl();
    }

    /** The MariaDB server's URL, chosen like {@link #pgUrl()} ({@code fencing.test.mariadb.url}, else embedded). */
    public static String mariadbUrl() {
        TestServers.Server server = TestServers.mariadb();
        return server.available() ? server.url() : TestServers.configuredMariaDbUrl();
    }

    /** The MariaDB server of {@link #mariadbUrl()} through MySQL Connector/J. */
    public static String mysqlUrl() {
        return "jdbc:mysql:" + mariadbUrl().substring("jdbc:mariadb:".length());
    }

    /**
     * Whether a MariaDB server is there for the tests (the machine's or an embedded one, {@link TestServers});
     * decided once per test JVM, and a "no" prints the one notice of the run. Under {@code CI=true} having none
     * is an error, never a skip.
     */
    public static synchronized boolean mariadbReachable() {
        TestServers.Server server = TestServers.mariadb();
        boolean fail = ci() || server.required();
        if (!server.available() && !mariadbNoticed && !fail) {
            mariadbNoticed = true;
            System.err.println("NOTICE: MariaDB tests skipped: " + server.unavailableBecause()
                    + ". Set -Dfencing.test.mariadb.url=... to run them.");
        }
        if (!server.available() && fail) {
            throw new IllegalStateException((server.required() ? "" : "CI=true but ") + "there is no MariaDB server: "
                    + server.unavailableBecause());
        }
        return server.available();
    }

    /** Skips the calling test when MariaDB is unreachable, unless running in CI, where that is a failure. */
    public static void requireMariaDb() {
        Assumptions.assumeTrue(mariadbReachable(), "MariaDB unreachable at " + mariadbUrl());
    }

    /**
     * Whether a PostgreSQL server is there for the tests (the machine's or an embedded one, {@link TestServers});
     * decided once per test JVM, and a "no" prints the one notice of the run. Under {@code CI=true} having none
     * is an error, never a skip.
     */
    public static synchronized boolean postgresReachable() {
        TestServers.Server server = TestServers.postgres();
        boolean fail = ci() || server.required();
        if (!server.available() && !postgresNoticed && !fail) {
            postgresNoticed = true;
            System.err.println("NOTICE: PostgreSQL tests skipped: " + server.unavailableBecause()
                    + ". Set -Dfencing.test.pg.url=... to run them.");
        }
        if (!server.available() && fail) {
            throw new IllegalStateException((server.required() ? "" : "CI=true but ") + "there is no PostgreSQL server: "
                    + server.unavailableBecause());
        }
        return server.available();
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
        if (rawUrl.startsWith("jdbc:mariadb:") || rawUrl.startsWith("jdbc:mysql:")) {
            dropNamedMariaDb(rawUrl, name);
            return;
        }
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

    /** {@link #dropNamed} on MariaDB: tables, views and routines of the current database named {@code name...}. */
    private static void dropNamedMariaDb(String rawUrl, String name) throws SQLException {
        String exact = name.toLowerCase(java.util.Locale.ROOT);
        String prefixed = exact.replace("_", "\\_") + "\\_%";
        String matches = " = ? OR lower(%1$s) LIKE ?";
        java.util.List<String> drops = new java.util.ArrayList<>();
        try (Connection c = DriverManager.getConnection(rawUrl)) {
            collect(c, drops, "SELECT CONCAT(IF(TABLE_TYPE = 'VIEW', 'DROP VIEW IF EXISTS `', 'DROP TABLE IF EXISTS `'),"
                    + " TABLE_NAME, '`') FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND (lower(TABLE_NAME)"
                    + String.format(matches, "TABLE_NAME") + ")", exact, prefixed);
            collect(c, drops, "SELECT CONCAT('DROP ', ROUTINE_TYPE, ' IF EXISTS `', ROUTINE_NAME, '`') FROM"
                    + " information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND (lower(ROUTINE_NAME)"
                    + String.format(matches, "ROUTINE_NAME") + ")", exact, prefixed);
            try (Statement s = c.createStatement()) {
                s.execute("SET FOREIGN_KEY_CHECKS = 0");
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
