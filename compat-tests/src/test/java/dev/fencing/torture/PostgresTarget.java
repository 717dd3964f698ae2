package dev.fencing.torture;

import dev.fencing.jdbc.TestDatabase;

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
        TestDatabase.requirePostgres();
        return new PostgresTarget("postgresql-shared", TestDatabase.pgUrl(), null);
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
