package dev.fencing.compat.corpus;

import dev.fencing.jdbc.RequiresPostgres;

import java.util.List;

/**
 * The PostgreSQL compatibility corpus (SPEC C8): a few hundred statements on twin schemas of the server. Needs the
 * server (skipped with a notice without it; a failure under {@code CI=true}).
 */
@RequiresPostgres
class PostgresCorpusTest extends CorpusTest {
    @Override
    String label() {
        return "PostgreSQL";
    }

    @Override
    String directory() {
        return "postgresql";
    }

    @Override
    List<String> groups() {
        return List.of("dml-basics", "arrays-composites", "domains", "partitions", "inheritance-only", "rules",
                "views-instead-of", "merge", "writable-with", "on-conflict", "returning", "temp-tables",
                "read-only-transactions", "procedures", "prepare-execute", "copy", "ddl", "rejected");
    }

    @Override
    int minimumStatements() {
        return 250;
    }

    @Override
    double minimumPercent() {
        return 98.5;
    }

    @Override
    Twins.Factory twins() {
        return PostgresTwins.factory();
    }
}
