package dev.fencing.sql;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SqlScriptTest {
    @Test
    void statementsEndWhereTheFencesLexerEndsThemWithTheirFirstLine() {
        String script = "-- cleanup; not a statement\n"
                + "DELETE FROM t WHERE note = 'a;b';\n"
                + "\n"
                + "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;;\n"
                + "/* two\n lines; */ UPDATE \"x;y\" SET v = 1\n";
        List<SqlScript.Statement> statements = SqlScript.statements(script, Dialect.POSTGRESQL);
        assertEquals(List.of(
                new SqlScript.Statement("-- cleanup; not a statement\nDELETE FROM t WHERE note = 'a;b'", 2),
                new SqlScript.Statement("CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql", 4),
                new SqlScript.Statement("/* two\n lines; */ UPDATE \"x;y\" SET v = 1", 6)), statements);
    }

    @Test
    void aScriptOfCommentsHasNoStatements() {
        assertEquals(List.of(), SqlScript.statements("-- nothing\n/* ; */ ;\n", Dialect.H2));
    }

    @Test
    void mariaDbBackslashesAndBackquotesAreReadAsTheServerReadsThem() {
        List<SqlScript.Statement> statements = SqlScript.statements(
                "INSERT INTO t VALUES ('it\\'s; fine');\nSELECT `a;b` FROM t # c;\n", Dialect.MARIADB);
        assertEquals(2, statements.size());
        assertEquals("INSERT INTO t VALUES ('it\\'s; fine')", statements.get(0).text());
        assertEquals(new SqlScript.Statement("SELECT `a;b` FROM t # c;", 2), statements.get(1));
    }
}
