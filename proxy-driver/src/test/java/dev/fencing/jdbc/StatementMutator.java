package dev.fencing.jdbc;

import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A seeded generator of SQL texts for the fuzz test: takes statements from a corpus of real ones and mutates them
 * the ways that desynchronise a hand-written lexer from the database (comments, quoting, case, white space and
 * unicode, nesting, {@code ;} splices, stray quotes and escapes, truncation). Same seed, same texts.
 */
final class StatementMutator {
    private static final String[] COMMENTS = {"/* c */", "/* ; */", "/* ' */", "/* /* nested */ */", "-- c\n",
        "-- ;'\n", "// c\n", "// '\n", "#c\n", "/*", "*/", "--", "\n"};
    private static final String[] SPACES = {" ", "  ", "\t", "\n", "\r\n", "\f", "\u00a0", "\u2003", "\u3000",
        "\u200b", "\u2028"};
    private static final String[] STRAYS = {"'", "\"", "`", "$$", "$a$", "\\", "\\'", "E'", "{", "}", "(", ")", ";",
        "?", "[", "]", "{call ", "{fn ", "''", "U&'", "N'", "X'"};
    private static final String[] WRAPPERS = {"SELECT * FROM (%s)", "(%s)", "WITH w AS (%s) SELECT 1",
        "EXPLAIN ANALYZE %s", "EXPLAIN %s", "SELECT * FROM FINAL TABLE (%s)", "SELECT * FROM OLD TABLE (%s)",
        "PREPARE p AS %s", "COPY (%s) TO STDOUT", "DO $$ BEGIN %s; END $$", "EXECUTE IMMEDIATE '%s'",
        "SELECT 1 WHERE EXISTS (%s)", "INSERT INTO {T} SELECT * FROM (%s) x", "SET @x = (%s)", "{call %s}",
        "CREATE TABLE {T}_f AS %s", "SELECT (%s)"};

    private final SplittableRandom random;
    private final List<String> corpus;
    private final String table;

    /** @param table replaces {@code {T}} in the wrappers that name a table */
    StatementMutator(long seed, List<String> corpus, String table) {
        this.random = new SplittableRandom(seed);
        this.corpus = corpus;
        this.table = table;
    }

    /** The next text: a corpus statement with zero to five mutations. */
    String next() {
        String sql = pick();
        int mutations = random.nextInt(6);
        for (int i = 0; i < mutations; i++) {
            sql = mutate(sql);
        }
        return sql;
    }

    private String pick() {
        return corpus.get(random.nextInt(corpus.size()));
    }

    private String mutate(String sql) {
        switch (random.nextInt(12)) {
            case 0:
                return insertAtBoundary(sql, COMMENTS[random.nextInt(COMMENTS.length)]);
            case 1:
                return quoteAWord(sql);
            case 2:
                return flipCase(sql);
            case 3:
                return replaceASpace(sql, SPACES[random.nextInt(SPACES.length)]);
            case 4:
                return String.format(Locale.ROOT, WRAPPERS[random.nextInt(WRAPPERS.length)], sql).replace("{T}", table);
            case 5:
                return random.nextBoolean() ? sql + ";" + pick() : pick() + "; " + sql;
            case 6:
                return sql.isEmpty() ? sql : sql.substring(0, random.nextInt(sql.length()));
            case 7:
                return insertAnywhere(sql, STRAYS[random.nextInt(STRAYS.length)]);
            case 8:
                return insertAnywhere(sql, ";");
            case 10:
                // a comment in place of the space between two words, no space around it
                return replaceASpace(sql, COMMENTS[random.nextInt(4)]);
            case 9:
                // repeats a stretch of the text
                int from = random.nextInt(sql.length() + 1);
                int to = Math.min(sql.length(), from + random.nextInt(12));
                return sql.substring(0, to) + sql.substring(from);
            default:
                return insertAtBoundary(sql, COMMENTS[random.nextInt(COMMENTS.length)] + pick()
                        + COMMENTS[random.nextInt(COMMENTS.length)]);
        }
    }

    private String insertAnywhere(String sql, String piece) {
        int at = random.nextInt(sql.length() + 1);
        return sql.substring(0, at) + piece + sql.substring(at);
    }

    /** Inserts {@code piece} where a space is (or at an end), so words stay whole. */
    private String insertAtBoundary(String sql, String piece) {
        int at = spaceAt(sql);
        return at < 0 ? piece + " " + sql : sql.substring(0, at) + " " + piece + " " + sql.substring(at);
    }

    private String replaceASpace(String sql, String space) {
        int at = spaceAt(sql);
        return at < 0 ? sql : sql.substring(0, at) + space + sql.substring(at + 1);
    }

    private int spaceAt(String sql) {
        int start = random.nextInt(sql.length() + 1);
        int at = sql.indexOf(' ', start);
        return at >= 0 ? at : sql.indexOf(' ');
    }

    /** Puts double quotes around one word, upper- or lower-cased, as a quoted identifier. */
    private String quoteAWord(String sql) {
        int start = random.nextInt(sql.length() + 1);
        while (start < sql.length() && !Character.isLetter(sql.charAt(start))) {
            start++;
        }
        if (start >= sql.length()) {
            return sql;
        }
        while (start > 0 && Character.isLetterOrDigit(sql.charAt(start - 1))) {
            start--;
        }
        int end = start;
        while (end < sql.length() && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
            end++;
        }
        String word = sql.substring(start, end);
        String cased = random.nextBoolean() ? word.toUpperCase(Locale.ROOT) : word.toLowerCase(Locale.ROOT);
        return sql.substring(0, start) + '"' + cased + '"' + sql.substring(end);
    }

    private String flipCase(String sql) {
        StringBuilder out = new StringBuilder(sql.length());
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            out.append(random.nextInt(3) == 0
                    ? Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c) : c);
        }
        return out.toString();
    }
}
