package dev.fencing.compat.corpus;

import dev.fencing.jdbc.RequiresMariaDb;

/**
 * {@link MariaDbCorpusTest} with the fenced side under the MariaDB session fence ({@code fencing.guard=session}):
 * a registered session sends the caller's text untouched, so what the session reports afterwards (issue 23:
 * {@code ROW_COUNT()}, warnings) is the server's own answer to that text.
 */
@RequiresMariaDb
class MariaDbSessionFenceCorpusTest extends MariaDbCorpusTest {
    @Override
    String label() {
        return "MariaDB through MariaDB Connector/J, session fence";
    }

    /** Measured 2026-12-02: 314 of 322 (97.5%) on both paths (docs/compatibility.md). */
    @Override
    double minimumPercent() {
        return 97.5;
    }

    @Override
    Twins.Factory twins() {
        return MariaDbTwins.sessionFenceFactory();
    }
}
