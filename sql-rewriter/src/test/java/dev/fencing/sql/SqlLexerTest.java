package dev.fencing.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SqlLexerTest {
    private static List<Part> split(String sql, Dialect dialect) {
        return SqlLexer.split(sql, dialect);
    }

    @Test
    void semicolonsInsideQuotesAndCommentsDoNotSplit_C5() {
        List<Part> parts = split("SELECT 'a;b', \"c;d\" -- x;y\n /* p;q */ FROM t; DELETE FROM u;", Dialect.H2);
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
        List<Part> parts = split("SELECT 1 // it's\n; UPDATE t SET a = 1", Dialect.H2);
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

    private static int count(String sql, Dialect dialect) {
        return split(sql, dialect).size();
    }

    @Test
    void postgresqlReadsEveryNonAsciiCharacterAsAnIdentifierCharacter_C9() {
        String hidden = "; UPDATE t SET a = 1; SELECT 2 AS b";
        for (String name : List.of("\u00e9", "a\u00a0", "\u00d7", "\ud83d\ude00", "a\u2028", "\u3000", "a\ufeff")) {
            assertEquals(3, count("SELECT 1 AS " + name + "$x$" + hidden + "$x$", Dialect.POSTGRESQL), name);
        }
        List<Token> tokens = split("SELECT\u00a01", Dialect.POSTGRESQL).get(0).tokens();
        assertEquals(1, tokens.size(), "U+00A0 is no white space on PostgreSQL");
    }

    @Test
    void postgresqlWhiteSpaceIsAsciiOnly_C9() {
        assertEquals(List.of("SELECT", "1"), words("SELECT\t\n\r\f\u000B1"));
        assertEquals(List.of("SELECT\u2003A"), words("SELECT\u2003a"));
    }

    private static List<String> words(String sql) {
        return split(sql, Dialect.POSTGRESQL).get(0).tokens().stream().map(Token::upper).toList();
    }

    @Test
    void postgresqlDollarQuoteTagsAndParameters_C9() {
        assertEquals(1, count("SELECT $\u00e9$ ; $\u00e9$", Dialect.POSTGRESQL), "non-ASCII tags");
        assertEquals(1, count("SELECT $_1$ ; $_1$", Dialect.POSTGRESQL));
        assertEquals(2, count("SELECT $1a$ ; $1a$", Dialect.POSTGRESQL), "a tag cannot start with a digit");
        assertEquals(1, count("SELECT $1$a$ ; $a$", Dialect.POSTGRESQL), "$1 is a parameter, then a dollar quote");
        assertEquals(1, count("SELECT 1$a$ ; $a$", Dialect.POSTGRESQL), "a number does not swallow the $");
        assertEquals(1, count("SELECT 'x'$a$ ; $a$", Dialect.POSTGRESQL));
        assertEquals(2, count("SELECT x$a$ ; $a$", Dialect.POSTGRESQL), "a $ after an identifier character is part of it");
        assertEquals(2, count("SELECT x1$a$ ; $a$", Dialect.POSTGRESQL));
        assertEquals(1, count("SELECT x\ud800$a$ ; $a$", Dialect.POSTGRESQL), "pgjdbc sends a lone surrogate as ?");
        assertEquals(1, count("SELECT $a$ $b$ ; $a$", Dialect.POSTGRESQL), "only the opening tag closes");
    }

    @Test
    void postgresqlPrefixedStringsOnlyAtTheStartOfAToken_C9() {
        String tail = "; UPDATE t SET a = 1; SELECT ''";
        assertEquals(1, SqlLexer.split("SELECT E'\\'" + tail, Dialect.POSTGRESQL, false).size());
        assertEquals(3, SqlLexer.split("SELECT xE'\\'" + tail, Dialect.POSTGRESQL, false).size());
        assertEquals(3, SqlLexer.split("SELECT U&'\\'" + tail, Dialect.POSTGRESQL, true).size());
        assertEquals(3, SqlLexer.split("SELECT B'\\'" + tail, Dialect.POSTGRESQL, true).size());
        assertEquals(1, SqlLexer.split("SELECT N'\\'" + tail, Dialect.POSTGRESQL, true).size());
        assertEquals(1, count("SELECT U&\"a;b\"", Dialect.POSTGRESQL));
    }

    @Test
    void postgresqlStringContinuationKeepsTheEscapeMode_C9() {
        String sql = "SELECT E'a' -- c\n '\\'; UPDATE t SET a = 1; SELECT '";
        assertEquals(1, SqlLexer.split(sql, Dialect.POSTGRESQL, false).size());
        assertEquals(3, SqlLexer.split("SELECT E'a' /* c */ '\\'; UPDATE t SET a = 1; SELECT '", Dialect.POSTGRESQL,
                false).size(), "a block comment ends the string; no continuation on the same line either");
    }

    @Test
    void backticksQuoteOnlyOnH2AndMariadb_C9() {
        String sql = "SELECT 1 `; UPDATE t SET a = 1; SELECT `";
        assertEquals(3, count(sql, Dialect.POSTGRESQL));
        assertEquals(1, count(sql, Dialect.H2));
    }

    @Test
    void postgresqlNestedCommentsAndLineComments_C9() {
        assertEquals(1, count("SELECT 1 /* a /* b */ ; */ -- ; \n", Dialect.POSTGRESQL));
        assertEquals(2, count("SELECT 1 -- a\r; UPDATE t SET a = 1", Dialect.POSTGRESQL));
    }

    @Test
    void numbersEndWhereTheServersEndThem_C9() {
        assertTrue(SqlLexer.isClear("SELECT 1e5, 1.5e-3, 0x1F, 0o17, 0b101, 1_000, $1", Dialect.POSTGRESQL));
        assertFalse(SqlLexer.isClear("SELECT 1abc", Dialect.POSTGRESQL), "PostgreSQL 15 rejects it, 14 reads 1 abc");
        assertFalse(SqlLexer.isClear("SELECT 1E'x'", Dialect.POSTGRESQL));
        assertFalse(SqlLexer.isClear("SELECT $1a", Dialect.POSTGRESQL));
        assertTrue(SqlLexer.isClear("SELECT 1L, 0x1F, 1_000, 1e5", Dialect.H2));
        assertEquals(1, count("SELECT 1_000$$x;y$$", Dialect.H2));
    }

    @Test
    void h2IdentifiersAndWhiteSpaceFollowJava_C9() {
        String hidden = "; UPDATE t SET a = 1; SELECT 2 AS b";
        for (String name : List.of("a", "\u20ac", "\u00e9", "a\u0001", "a\u200b", "\ud835\udc00")) {
            assertEquals(3, count("SELECT 1 AS " + name + "$$" + hidden + "$$", Dialect.H2), name);
        }
        assertEquals(1, count("SELECT 1 AS \u00d7$$" + hidden + "$$", Dialect.H2), "U+00D7 is no identifier part");
        assertEquals(List.of("SELECT", "1"), split("SELECT\u00a01", Dialect.H2).get(0).tokens().stream()
                .map(Token::upper).toList(), "H2 separates words with Unicode space separators");
        assertEquals(1, split("SELECT\u00011", Dialect.H2).get(0).tokens().size(),
                "an identifier-ignorable control character goes on the identifier");
    }

    @Test
    void h2CompatibilityModeSyntaxMakesATextUnclear_C9() {
        assertFalse(SqlLexer.isClear("SELECT [a;b]", Dialect.H2));
        assertFalse(SqlLexer.isClear("SELECT ['] FROM t [']", Dialect.H2));
        assertFalse(SqlLexer.isClear("SELECT x#$$; UPDATE t SET a = 1; SELECT $$", Dialect.H2));
        assertTrue(SqlLexer.isClear("SELECT ARRAY[1, 2][1]", Dialect.H2));
    }
}
