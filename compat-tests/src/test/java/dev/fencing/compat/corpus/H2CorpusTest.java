package dev.fencing.compat.corpus;

import java.util.List;

/** The H2 compatibility corpus (SPEC C8): H2's own spelling of the statements, on twin in-memory databases. */
class H2CorpusTest extends CorpusTest {
    @Override
    String label() {
        return "H2";
    }

    @Override
    String directory() {
        return "h2";
    }

    @Override
    List<String> groups() {
        return List.of("dml-basics", "arrays", "merge", "views-triggers", "temp-tables", "transactions", "ddl",
                "h2-specific", "rejected");
    }

    @Override
    int minimumStatements() {
        return 120;
    }

    @Override
    double minimumPercent() {
        return 99.0;
    }

    @Override
    Twins.Factory twins() {
        return H2Twins.factory();
    }
}
