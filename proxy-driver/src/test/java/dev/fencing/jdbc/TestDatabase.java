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

    /** A name unique in this JVM run, for tables and resources shared on the PostgreSQL server. */
    public static String unique(String prefix) {
        return prefix + "_" + ProcessHandle.current().pid() + "_" + NAMES.incrementAndGet();
    }
}
