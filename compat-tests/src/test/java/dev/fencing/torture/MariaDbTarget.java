package dev.fencing.torture;

import dev.fencing.jdbc.TestDatabase;

/**
 * The shared MariaDB server named by {@code fencing.test.mariadb.url}, never restarted; its sessions are not marked,
 * so the only injected faults are connections aborted under a statement and short lock and statement timeouts.
 */
final class MariaDbTarget extends Target {
    private final String rawUrl;

    private MariaDbTarget(String rawUrl) {
        this.rawUrl = rawUrl;
    }

    /** The shared server; skips the test with a notice when it is unreachable, except under {@code CI=true}. */
    static MariaDbTarget shared() {
        return new MariaDbTarget(TestDatabase.MARIADB.rawUrl());
    }

    @Override
    String name() {
        return "mariadb-shared";
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
        return rawUrl;
    }
}
