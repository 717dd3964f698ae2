package dev.fencing.torture;

import dev.fencing.jdbc.TestDatabase;

/**
 * The shared MariaDB server named by {@code fencing.test.mariadb.url}, never restarted. Under the statement guard the
 * injected faults are connections aborted under a statement and short lock and statement timeouts; a run that also
 * asks for {@link Faults.Kind#KILL_BACKEND} and {@link Faults.Kind#CANCEL_STATEMENT} gets {@code KILL CONNECTION} and
 * {@code KILL QUERY} of the run's own sessions, told apart by the run's tables ({@link Faults}). The run's clients
 * reach the server through MariaDB Connector/J or MySQL Connector/J; setup, the monitor and the final read through
 * MariaDB Connector/J.
 */
final class MariaDbTarget extends Target {
    private final String name;
    private final String rawUrl;
    private final String clientUrl;

    private MariaDbTarget(String name, String rawUrl, String clientUrl) {
        this.name = name;
        this.rawUrl = rawUrl;
        this.clientUrl = clientUrl;
    }

    /** The shared server; skips the test with a notice when it is unreachable, except under {@code CI=true}. */
    static MariaDbTarget shared() {
        String url = TestDatabase.MARIADB.rawUrl();
        return new MariaDbTarget("mariadb-shared", url, url);
    }

    /** The shared server, the run's clients through MySQL Connector/J ({@code jdbc:mysql:}). */
    static MariaDbTarget sharedThroughMySqlConnector() {
        return new MariaDbTarget("mariadb-shared-mysql-connector", TestDatabase.MARIADB.rawUrl(),
                TestDatabase.MYSQL.rawUrl());
    }

    @Override
    String name() {
        return name;
    }

    @Override
    boolean postgres() {
        return false;
    }

    @Override
    boolean mariadb() {
        return true;
    }

    @Override
    String rawUrl() {
        return rawUrl;
    }

    @Override
    String clientUrl() {
        return clientUrl;
    }
}
