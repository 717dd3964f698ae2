package dev.fencing.torture;

import org.junit.jupiter.api.Assumptions;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Random;

/**
 * A PostgreSQL server: either the shared one named by {@code fencing.test.pg.url} (never restarted; only the run's
 * own sessions, marked by their application name, are ever killed) or one the test owns ({@link OwnedPostgres}).
 */
final class PostgresTarget extends Target {
    private final String name;
    private final String rawUrl;
    private final String applicationName = Target.unique("torture");
    private final OwnedPostgres owned;

    private PostgresTarget(String name, String rawUrl, OwnedPostgres owned) {
        this.name = name;
        this.rawUrl = rawUrl;
        this.owned = owned;
    }

    /** The shared server; skips the test with a notice when it is unreachable, except under {@code CI=true}. */
    static PostgresTarget shared() {
        String url = System.getProperty("fencing.test.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        try (Connection c = DriverManager.getConnection(url)) {
            c.isValid(5);
        } catch (SQLException e) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new IllegalStateException("CI=true but PostgreSQL is unreachable at " + url, e);
            }
            System.err.println("NOTICE: PostgreSQL torture test skipped: no server at " + url + " (" + e.getMessage()
                    + "). Set -Dfencing.test.pg.url=... to run it.");
            Assumptions.abort("PostgreSQL unreachable at " + url);
        }
        return new PostgresTarget("postgresql-shared", url, null);
    }

    /** A server of the test's own, in a fresh data directory; skipped with a notice where it cannot be started. */
    static PostgresTarget owned() throws Exception {
        OwnedPostgres server = OwnedPostgres.start();
        return new PostgresTarget("postgresql-owned", server.url(), server);
    }

    @Override
    String name() {
        return name;
    }

    @Override
    boolean postgres() {
        return true;
    }

    @Override
    String rawUrl() {
        return rawUrl;
    }

    @Override
    String clientUrl() {
        return rawUrl + (rawUrl.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName;
    }

    @Override
    String applicationName() {
        return applicationName;
    }

    @Override
    boolean canRestart() {
        return owned != null;
    }

    @Override
    String restart(Random random) throws Exception {
        if (owned == null) {
            return super.restart(random);
        }
        return owned.restart(random);
    }

    @Override
    public void close() throws Exception {
        if (owned != null) {
            owned.close();
        }
    }
}
