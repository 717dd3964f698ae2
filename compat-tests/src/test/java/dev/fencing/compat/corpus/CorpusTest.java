package dev.fencing.compat.corpus;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The compatibility corpus (SPEC C8) on each database by a subclass: the statements legacy code sends, in the
 * database's own spelling, run on twin databases through the underlying driver and through the fencing driver
 * with a current token. Prints the share of identical outcomes per group and each difference, and fails below the
 * measured level.
 */
abstract class CorpusTest {
    /** The database's name in the report. */
    abstract String label();

    /** The corpus directory under {@code corpus/} in the test resources. */
    abstract String directory();

    /** The corpus groups run, in order. */
    abstract List<String> groups();

    /** The fewest statements the corpus may hold. */
    abstract int minimumStatements();

    /** Set from the measured value (see docs/compatibility.md); lower it only with a documented reason. */
    abstract double minimumPercent();

    abstract Twins.Factory twins();

    @Test
    void identicalToTheUnderlyingDriver_C8() throws Exception {
        assertIdentical(false);
    }

    @Test
    void identicalToTheUnderlyingDriverWhenPrepared_C8() throws Exception {
        assertIdentical(true);
    }

    private void assertIdentical(boolean prepared) throws Exception {
        Corpus corpus = Corpus.load(directory(), groups());
        CorpusRun run = CorpusRun.run(corpus, twins(), prepared);
        String report = run.report(label() + (prepared ? ", prepared statements" : ""));
        System.out.println(report);
        assertTrue(run.total() >= minimumStatements(), "the corpus holds " + run.total() + " statements");
        assertTrue(run.percentIdentical() >= minimumPercent(), report);
    }
}
