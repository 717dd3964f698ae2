package dev.fencing.jdbc;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fencing.sql.Analysis;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.SqlAnalyzer;
import dev.fencing.sql.StatementKind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The lexer against the servers themselves (C9): generated texts hide {@code UPDATE probe SET n = n + 1} between two
 * reads behind unicode identifiers, {@code $}, dollar-quote tags, prefixed strings, comments and white space. Each
 * text runs on a raw connection in a transaction that is rolled back; whenever the probe row changed (the server
 * ran the UPDATE), the analyzer must not have called the text read-only, a setting or transaction control.
 */
class LexerDifferentialTest {
    private static final int TEXTS = 1500;
    private static final Set<StatementKind> PASSING = EnumSet.of(StatementKind.READ_ONLY,
            StatementKind.SESSION_SETTING, StatementKind.TRANSACTION_CONTROL);
    /** Pieces an identifier or its surroundings are made of: each server reads some of them differently. */
    private static final String[] PIECES = {"a", "Z", "_", "1", "$", "$", "$", "\u00e9", "\u00df", "\u0416", "\u4e2d",
        "\u00d7", "\u20ac", "\u00a9", "\u00b7", "\ud83d\ude00", "\ud835\udc00", "\u00a0", "\u2003", "\u3000", "\u2028",
        "\ufeff", "\u200b", "\u0001", "\u000b", "\u0085", "\ud800", " ", "\t", "\n", "\r", "\f", "e", "E", "x", "U&",
        "#", "[", "]", "`", "\\", "0x1", "1e5", "1_0"};
    /** Openers and the closers that end them; a closer is repeated after the hidden UPDATE. */
    private static final String[] OPENERS = {"$$", "$x$", "$\u00e9$", "$_1$", "$1$", "$a$b$", "'", "E'", "e'", "U&'",
        "N'", "B'", "X'", "\"", "U&\"", "`", "/*", "--", "//", "#", "[", "$", "$\u00a0$", "$\ud800$"};

    private final SqlAnalyzer postgres = new SqlAnalyzer(Dialect.POSTGRESQL, EpochTable.of("fencing_epoch"), 0);
    private final SqlAnalyzer h2 = new SqlAnalyzer(Dialect.H2, EpochTable.of("fencing_epoch"), 0);

    static List<String> texts(long seed) {
        Random random = new Random(seed);
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < TEXTS; i++) {
            String opener = OPENERS[random.nextInt(OPENERS.length)];
            String closer = random.nextInt(4) == 0 ? OPENERS[random.nextInt(OPENERS.length)] : closerOf(opener);
            String before = fragment(random);
            String after = random.nextBoolean() ? before : fragment(random);
            String backslash = random.nextInt(3) == 0 ? "\\" : "";
            String lineBreak = random.nextInt(3) == 0 ? "\n" : " ";
            texts.add("SELECT 1 AS a" + before + opener + backslash + ";" + lineBreak + "UPDATE probe SET n = n + 1;"
                    + lineBreak + "SELECT 2 AS b" + after + closer + (random.nextInt(4) == 0 ? "\n" : ""));
        }
        return texts;
    }

    private static String closerOf(String opener) {
        switch (opener) {
            case "E'", "e'", "U&'", "N'", "B'", "X'":
                return "'";
            case "U&\"":
                return "\"";
            case "/*":
                return "*/";
            case "[":
                return "]";
            case "--", "//", "#":
                return "\n";
            default:
                return opener;
        }
    }

    private static String fragment(Random random) {
        StringBuilder fragment = new StringBuilder();
        int pieces = random.nextInt(4);
        for (int i = 0; i < pieces; i++) {
            fragment.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return fragment.toString();
    }

    @Test
    void h2RunsTheHiddenUpdateOnlyWhereTheAnalyzerSeesAWrite_C9() throws Exception {
        String url = TestDatabase.H2.rawUrl();
        int ran = judge(h2, List.of(url, url + ";MODE=MSSQLServer"), "probe", 11);
        assertTrue(ran >= 20, "too few texts ran the hidden UPDATE on H2 for the test to mean anything: " + ran);
    }

    @Test
    @RequiresPostgres
    void postgresqlRunsTheHiddenUpdateOnlyWhereTheAnalyzerSeesAWrite_C9() throws Exception {
        String url = TestDatabase.POSTGRESQL.rawUrl();
        String separator = url.contains("?") ? "&" : "?";
        String probe = TestDatabase.unique("probe");
        int ran = judge(postgres, List.of(url, url + separator + "preferQueryMode=simple",
                url + separator + "options=-c%20standard_conforming_strings%3Doff"), probe, 17);
        assertTrue(ran >= 20, "too few texts ran the hidden UPDATE on PostgreSQL for the test to mean anything: " + ran);
    }

    /** Runs every text on every URL; returns how many runs changed the probe. */
    private int judge(SqlAnalyzer analyzer, List<String> urls, String probe, long seed) throws SQLException {
        TestDatabase.exec(urls.get(0), "CREATE TABLE " + probe + " (n INT)", "INSERT INTO " + probe + " VALUES (0)");
        int ran = 0;
        List<String> failures = new ArrayList<>();
        try {
            for (String url : urls) {
                try (Connection c = DriverManager.getConnection(url)) {
                    c.setAutoCommit(false);
                    for (String text : texts(seed)) {
                        String sql = text.replace("probe", probe);
                        if (!changesProbe(c, sql, probe)) {
                            continue;
                        }
                        ran++;
                        Analysis analysis = analyzer.analyze(sql);
                        if (PASSING.contains(analysis.kind())) {
                            failures.add(url + ": " + escape(sql) + " -> " + analysis);
                        }
                    }
                }
            }
        } finally {
            TestDatabase.exec(urls.get(0), "DROP TABLE " + probe);
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " texts ran an UPDATE the analyzer did not see, e.g.:\n"
                    + String.join("\n", failures.subList(0, Math.min(10, failures.size()))));
        }
        return ran;
    }

    /** Whether the server ran the text's UPDATE: the probe as read in the same transaction, which is rolled back. */
    private static boolean changesProbe(Connection c, String sql, String probe) throws SQLException {
        try (Statement s = c.createStatement()) {
            try {
                s.execute(sql);
                while (s.getMoreResults() || s.getUpdateCount() != -1) {
                    // drain every result, so each statement of the text has run
                }
            } catch (SQLException rejected) {
                c.rollback();
                return false;
            }
            try (ResultSet rs = s.executeQuery("SELECT n FROM " + probe)) {
                rs.next();
                return rs.getInt(1) != 0;
            } finally {
                c.rollback();
            }
        }
    }

    private static String escape(String sql) {
        StringBuilder out = new StringBuilder();
        sql.chars().forEach(ch -> out.append(ch >= 0x20 && ch < 0x7f ? String.valueOf((char) ch)
                : String.format("\\u%04x", ch)));
        return out.toString();
    }
}
