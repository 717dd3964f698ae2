package dev.fencing.sql;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The facts the driver's refusals read from tokens instead of the raw text (issue 21, causes 1 and 6). */
class StatementFactsTest {
    private final SqlAnalyzer mariadb = new SqlAnalyzer(Dialect.MARIADB, EpochTable.of("fencing_epoch"),
            List.of(EpochTable.of("fencing_lease")), 0);
    private final SqlAnalyzer pg = new SqlAnalyzer(Dialect.POSTGRESQL, EpochTable.of("fencing_epoch"), 0);
    private final SqlAnalyzer h2 = new SqlAnalyzer(Dialect.H2, EpochTable.of("fencing_epoch"), 0);

    @Test
    void aChangeOfTheClientCharsetIsReadPerStatement_C9() {
        for (String sql : List.of("SET NAMES gbk", "SELECT 1; SET NAMES gbk", "SET NAMES/**/gbk", "SET CHARSET sjis",
                "SET CHARACTER SET big5", "SET CHAR SET gbk", "SET NAMES DEFAULT", "SET NAMES @x",
                "SET character_set_client = gbk", "SET @@character_set_client := 'gbk'",
                "SET @@session.character_set_connection = gbk", "SET SESSION collation_connection = gbk_bin",
                "SET @a = 1, character_set_client = gbk", "SET STATEMENT character_set_client = gbk FOR SELECT 1",
                "SET character_set_client = (SELECT 'gbk')", "SET NAMES 'utf8mb4', CHARSET gbk",
                "UPDATE t SET v = 1; SET NAMES gbk")) {
            assertTrue(mariadb.analyze(sql).changesClientCharset(), sql);
        }
        for (String sql : List.of("SELECT @@character_set_client", "SET NAMES utf8mb4", "SET NAMES 'latin1'",
                "SET NAMES utf8mb4 COLLATE utf8mb4_bin", "SET CHARACTER SET ascii", "SELECT 'SET NAMES gbk'",
                "SET character_set_client = utf8mb3, collation_connection = utf8mb4_general_ci",
                "SET character_set_results = gbk", "SET @names = 'gbk'", "SELECT 1; SET NAMES utf8")) {
            assertFalse(mariadb.analyze(sql).changesClientCharset(), sql);
        }
        assertFalse(pg.analyze("SET NAMES 'gbk'").changesClientCharset(), "PostgreSQL's client_encoding is its own");
        assertTrue(SqlAnalyzer.isSafeClientCharset("UTF8MB4"));
        assertFalse(SqlAnalyzer.isSafeClientCharset("gbk"));
    }

    @Test
    void prepareTransactionAndLocksAreReadWithCommentsBetweenTheirWords_C5() {
        for (String sql : List.of("PREPARE TRANSACTION 'g'", "PREPARE/**/TRANSACTION 'g'", "PREPARE -- x\nTRANSACTION 'g'")) {
            assertTrue(pg.analyze(sql).preparesTransaction(), sql);
        }
        assertFalse(pg.analyze("PREPARE p AS SELECT 1").preparesTransaction());
        for (String sql : List.of("LOCK TABLE fencing_epoch", "SELECT * FROM t FOR/**/UPDATE",
                "SELECT * FROM t FOR NO -- x\nKEY UPDATE", "SELECT * FROM t FOR KEY/* */SHARE",
                "SELECT * FROM t FOR SHARE")) {
            assertTrue(pg.analyze(sql).locksRows(), sql);
        }
        assertTrue(mariadb.analyze("SELECT * FROM t LOCK/**/IN SHARE MODE").locksRows());
        assertFalse(pg.analyze("SELECT 'FOR UPDATE' FROM t").locksRows());
        assertFalse(pg.analyze("SELECT pg_advisory_lock(1)").locksRows());
    }

    @Test
    void aProtectedTableIsNamedAsItsFoldedName_C5() {
        assertTrue(pg.analyze("SELECT * FROM public.\"FENCING_EPOCH\"").namesProtectedTable());
        assertTrue(h2.analyze("SELECT * FROM fenc\u0131ng_epoch").namesProtectedTable());
        assertTrue(mariadb.analyze("SELECT * FROM `fencing_lease`").namesProtectedTable());
        assertFalse(pg.analyze("SELECT * FROM fencing_epoch_archive").namesProtectedTable());
        assertFalse(pg.analyze("SELECT 'fencing_epoch'").namesProtectedTable());
        assertEquals(List.of("fencing_epoch"),
                h2.analyze("MERGE INTO fenc\u0131ng_epoch KEY(resource) VALUES('r', 9)").targetTables());
    }

    @Test
    void oneFoldAndOneQualifiedNameReader_C5() {
        assertEquals("fencing_epoch", Names.fold("\"FENC\u0131NG_EPOCH\""));
        assertEquals("fencing_epoch", Names.ownOf("\"a.b\".fenc\u0131ng_epoch"));
        assertEquals("x.y", Names.ownOf("s.\"x.y\""));
        assertEquals("fencing_epoch", EpochTable.of("FENCING_EPOCH").simpleName());
        assertTrue(Names.isPlainOrDoubleQuoted("Audit_1$") && Names.isPlainOrDoubleQuoted("\"a\"\"b\""));
        assertFalse(Names.isPlainOrDoubleQuoted("\"a\"b\"") || Names.isPlainOrDoubleQuoted("1a")
                || Names.isPlainOrDoubleQuoted("a;b") || Names.isPlainOrDoubleQuoted("\"\""));
    }

    @Test
    void everyCallShapedWordIsAskedOfTheCatalog_C9() {
        assertTrue(pg.analyze("SELECT by()").calledFunctions().contains("by"));
        assertTrue(pg.analyze("SELECT join()").calledFunctions().contains("join"));
        assertTrue(h2.analyze("SELECT THEN('T', 1)").calledFunctions().contains("THEN"));
        assertTrue(mariadb.analyze("SELECT 1fX()").calledFunctions().contains("1fX"));
        assertTrue(mariadb.analyze("SELECT \u20acX()").calledFunctions().contains(CatalogFacts.UNREADABLE));
        assertTrue(mariadb.analyze("SELECT a\u00a0X()").calledFunctions().contains(CatalogFacts.UNREADABLE));
        assertFalse(pg.analyze("SELECT 1e5").calledFunctions().contains("1e5"));
    }
}
