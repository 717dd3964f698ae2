package dev.fencing.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class SqlLexerTest {
    private static List<SqlLexer.Part> split(String sql, Dialect dialect) {
        return SqlLexer.split(sql, dialect);
    }

    @Test
    void semicolonsInsideQuotesAndCommentsDoNotSplit_C5() {
        List<SqlLexer.Part> parts = split("SELECT 'a;b', \"c;d\" -- x;y\n /* p;q */ FROM t; DELETE FROM u;", Dialect.H2);
        assertEquals(2, parts.size());
        assertEquals(" DELETE FROM u", parts.get(1).text());
    }

    @Test
    void doubledQuotesStayInsideTheString_C5() {
        assertEquals(1, split("SELECT 'it''s; fine'", Dialect.POSTGRESQL).size());
    }

    @Test
    void dollarQuotesAndEscapeStringsHideSemicolonsOnPostgresql_C5() {
        assertEquals(1, split("DO $$ BEGIN DELETE FROM t; END $$", Dialect.POSTGRESQL).size());
        assertEquals(1, split("DO $body$ x; $$ y; $body$", Dialect.POSTGRESQL).size());
        assertEquals(1, split("SELECT E'a\\'; b'", Dialect.POSTGRESQL).size());
    }

    @Test
    void nestedCommentsOnPostgresql_C5() {
        assertEquals(1, split("SELECT 1 /* a /* b */ ; */", Dialect.POSTGRESQL).size());
    }

    @Test
    void backticksAndBackslashesOnMariadb_C5() {
        assertEquals(1, split("SELECT `a;b`, 'x\\';y' FROM t # c;d", Dialect.MARIADB).size());
    }

    @Test
    void markersAreCountedOutsideQuotesOnly_C5() {
        assertEquals(2, split("UPDATE t SET a = ?, b = '?' WHERE c = ? -- ?", Dialect.H2).get(0).markers());
    }

    @Test
    void emptyPartsAreDropped_C5() {
        assertEquals(0, split(" ; -- nothing\n ;", Dialect.H2).size());
        assertEquals(1, split("SELECT 1;;", Dialect.H2).size());
    }

    @Test
    void h2LineCommentsWithSlashesAndNestedBlockComments_C5() {
        List<SqlLexer.Part> parts = split("SELECT 1 // it's\n; UPDATE t SET a = 1", Dialect.H2);
        assertEquals(2, parts.size(), "// starts a comment on H2, so the quote inside it opens no string");
        assertEquals(1, split("SELECT 1 /* a /* b */ ; */", Dialect.H2).size());
    }

    @Test
    void h2HasNoTaggedDollarQuotes_C5() {
        assertEquals(3, split("SELECT $a$; UPDATE t SET a = 1; $a$", Dialect.H2).size());
        assertEquals(1, split("SELECT $$x; y$$", Dialect.H2).size());
    }

    @Test
    void backslashReadingCanMoveAStringsEnd_C5() {
        String sql = "SELECT '\\' ';UPDATE t SET a = 0;SELECT ''";
        assertEquals(1, SqlLexer.split(sql, Dialect.POSTGRESQL, false).size());
        assertEquals(3, SqlLexer.split(sql, Dialect.POSTGRESQL, true).size());
    }
}
