package dev.fencing.compat.corpus;

import dev.fencing.jdbc.RequiresMariaDb;

import java.util.List;

/**
 * The MariaDB compatibility corpus (SPEC C8, issue 23): statements MariaDB and MySQL applications send, written for
 * this project, on twin databases of the MariaDB server through MariaDB Connector/J (the twin class: MySQL
 * Connector/J). Needs the server (skipped with a notice without it; a failure under {@code CI=true}).
 */
@RequiresMariaDb
class MariaDbCorpusTest extends CorpusTest {
    @Override
    String label() {
        return "MariaDB through MariaDB Connector/J";
    }

    @Override
    String directory() {
        return "mariadb";
    }

    @Override
    List<String> groups() {
        return List.of("dml-basics", "upserts", "returning", "multi-table", "session-functions", "views", "ddl",
                "sequences", "sql-modes", "prepare-execute", "transactions", "lock-tables", "rejected");
    }

    @Override
    int minimumStatements() {
        return 200;
    }

    @Override
    double minimumPercent() {
        return 95.9;
    }

    @Override
    Twins.Factory twins() {
        return MariaDbTwins.factory(false);
    }
}
