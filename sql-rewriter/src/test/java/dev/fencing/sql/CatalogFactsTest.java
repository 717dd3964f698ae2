package dev.fencing.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** SPEC C9: the names an analysis hands the driver to ask the catalog about, and which statements only change data. */
class CatalogFactsTest {
    private final SqlAnalyzer pg = new SqlAnalyzer(Dialect.POSTGRESQL, EpochTable.of("fencing_epoch"), 0);
    private final SqlAnalyzer h2 = new SqlAnalyzer(Dialect.H2, EpochTable.of("fencing_epoch"), 0);

    @Test
    void everyNameFollowedByAParenthesisIsReportedAsACall_C9() {
        assertEquals(List.of("f"), pg.analyze("SELECT f()").calledFunctions());
        assertEquals(List.of("Write It", "abs", "IN", "g"), pg.analyze("SELECT \"Write It\"(1) + abs(-1) * 0 FROM t"
                + " WHERE x IN (SELECT g(2))").calledFunctions());
        assertEquals(List.of("count", "lower"), h2.analyze("SELECT count(*), lower('x') FROM t").calledFunctions());
        assertEquals(List.of("AS", "bump"), h2.analyze("WITH x AS (SELECT bump() AS v) SELECT v FROM x")
                .calledFunctions());
        assertEquals(List.of("f"), h2.analyze("SELECT s.f(1)").calledFunctions(), "schema-qualified");
        assertEquals(List.of("f"), pg.analyze("SELECT 1; SELECT f()").calledFunctions(), "several statements");
        assertEquals(List.of("setval"), pg.analyze("select setval('s', 5)").calledFunctions());
    }

    @Test
    void stringsAndInsertColumnListsAreNoCallsButWordsThatLookLikeKeywordsAre_C9() {
        // no skip list of keywords: PostgreSQL calls by() and join(), H2 BY() and THEN() (issue 21); the catalog
        // says they are no functions, once per connection
        assertEquals(List.of("IN", "EXISTS"), h2.analyze("SELECT 'f()' FROM t WHERE a IN (1) AND EXISTS (SELECT 1)")
                .calledFunctions());
        assertEquals(List.of("VALUES"), h2.analyze("INSERT INTO t (a) VALUES (1)").calledFunctions());
        assertEquals(List.of(), h2.analyze("SELECT 1.5 FROM t").calledFunctions());
    }

    @Test
    void mariadbSessionBuiltinsUnqualifiedAreNoCatalogQuestionButNextValueForIsNextval_C9() {
        SqlAnalyzer maria = new SqlAnalyzer(Dialect.MARIADB, EpochTable.of("fencing_epoch"), 0);
        assertEquals(List.of(), maria.analyze("SELECT ROW_COUNT(), found_rows (), LAST_INSERT_ID()").calledFunctions());
        assertTrue(maria.analyze("SELECT db.row_count()").calledFunctions().contains("row_count"),
                "a stored function of the name is called qualified");
        assertTrue(maria.analyze("SELECT `ROW_COUNT`()").calledFunctions().contains("ROW_COUNT"),
                "a quoted name is asked about");
        assertEquals(List.of("NEXTVAL"), maria.analyze("SELECT NEXT VALUE FOR s").calledFunctions());
        assertEquals(List.of("NEXTVAL"), maria.analyze("INSERT INTO t VALUE (NEXT /* c */ VALUE FOR s)")
                .calledFunctions().stream().filter(n -> !n.equals("VALUE")).toList());
    }

    @Test
    void postgresAttributeNotationAndUnicodeNamesAreReported_C9() {
        assertEquals(List.of("dbl"), pg.analyze("SELECT e.dbl FROM emp e").calledFunctions(),
                "t.f calls f(t) on PostgreSQL");
        assertEquals(List.of(), h2.analyze("SELECT e.dbl FROM emp e").calledFunctions());
        assertEquals(List.of(CatalogFacts.UNREADABLE), pg.analyze("SELECT U&\"wr\\0069te\"()").calledFunctions());
    }

    @Test
    void onlyPlainDataChangesCarryTheirTargetReferences_C9() {
        Analysis update = pg.analyze("UPDATE public.\"Audit\" SET note = 'x' WHERE id = 1");
        assertTrue(update.changesDataOnly());
        assertEquals(List.of(List.of("public", "\"Audit\"")), update.targetReferences());
        assertTrue(pg.analyze("INSERT INTO audit (id) VALUES (1)").changesDataOnly());
        assertTrue(pg.analyze("WITH x AS (SELECT 1) DELETE FROM audit").changesDataOnly());
        assertTrue(pg.analyze("COPY audit FROM STDIN").changesDataOnly());
        assertTrue(h2.analyze("MERGE INTO audit KEY (id) VALUES (1)").changesDataOnly());
        assertFalse(pg.analyze("COPY audit TO '/tmp/x'").changesDataOnly());
        assertFalse(pg.analyze("ALTER TABLE audit INHERIT t").changesDataOnly());
        assertFalse(pg.analyze("ALTER TABLE t ATTACH PARTITION audit FOR VALUES IN (1)").changesDataOnly());
        assertFalse(pg.analyze("TRUNCATE audit").changesDataOnly());
        assertFalse(pg.analyze("DROP TABLE audit").changesDataOnly());
        assertFalse(pg.analyze("SELECT * INTO audit FROM t").changesDataOnly());
        assertFalse(pg.analyze("INSERT INTO audit VALUES (1); INSERT INTO audit VALUES (2)").changesDataOnly());
        assertFalse(pg.analyze("SELECT 1").changesDataOnly());
        assertEquals(List.of(), pg.analyze("DROP TABLE audit").targetReferences());
    }
}
