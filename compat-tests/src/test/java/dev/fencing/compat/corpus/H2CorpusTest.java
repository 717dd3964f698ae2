package dev.fencing.compat.corpus;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The H2 compatibility corpus (SPEC C8): H2's own spelling of the statements legacy code sends, run on twin
 * in-memory databases through the underlying driver and through the fencing driver with a current token.
 */
class H2CorpusTest {
    /** Set from the measured value (see docs/compatibility.md); lower it only with a documented reason. */
    static final double MINIMUM_PERCENT = 99.0;

    static final List<String> GROUPS = List.of("dml-basics", "arrays", "merge", "views-triggers", "temp-tables",
            "transactions", "ddl", "h2-specific", "rejected");

    @Test
    void identicalToTheUnderlyingDriver_C8() throws Exception {
        assertIdentical(false);
    }

    @Test
    void identicalToTheUnderlyingDriverWhenPrepared_C8() throws Exception {
        assertIdentical(true);
    }

    private static void assertIdentical(boolean prepared) throws Exception {
        Corpus corpus = Corpus.load("h2", GROUPS);
        CorpusRun run = CorpusRun.run(corpus, H2Twins.factory(), prepared);
        String report = run.report("H2" + (prepared ? ", prepared statements" : ""));
        System.out.println(report);
        assertTrue(run.total() >= 120, "the corpus holds " + run.total() + " statements");
        assertTrue(run.percentIdentical() >= MINIMUM_PERCENT, report);
    }
}
