package dev.fencing.sql;

import dev.fencing.sql.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static dev.fencing.sql.KeywordClassifier.word;

/**
 * Finds statements that carry another statement, which the parser cannot see into or reads as something else:
 * {@code EXPLAIN s} (with {@code ANALYZE} runs s), MariaDB's {@code SET STATEMENT ... FOR s}, {@code PREPARE name AS s}, {@code DECLARE c CURSOR FOR s}, {@code COPY (s)
 * TO ...}, and H2's data change
 * delta tables ({@code SELECT ... FROM FINAL TABLE (UPDATE ...)}), which make a query write.
 */
final class InnerStatements {
    /**
     * The names PostgreSQL's JDBC driver gives its own server-side prepared statements ({@code S_1}, ...), in any
     * case and quoting: a {@code PREPARE} under one could replace a statement the driver later runs by name.
     */
    private static final java.util.regex.Pattern DRIVER_STATEMENT_NAME =
            java.util.regex.Pattern.compile("(?i)\"?s_[0-9]+\"?");

    /** How the outer statement uses the inner one. */
    enum Carrier {
        /**
         * {@code EXPLAIN [options] s}: guarded as s whatever the options say, since an option spelled in a way the
         * driver does not recognise ({@code ("analyze")}, {@code U&"analyze"}) may make the server run s.
         */
        EXPLAIN,
        /** MariaDB's {@code SET STATEMENT var = value [, ...] FOR s}: runs s with the variables set. */
        SET_STATEMENT,
        /** {@code PREPARE name AS s}: treated like s, since a later {@code EXECUTE name} runs it. */
        PREPARE,
        /** {@code DECLARE name CURSOR FOR s}: treated like s, since {@code FETCH} runs it. */
        DECLARE_CURSOR,
        /** {@code COPY (s) TO STDOUT}: runs s and streams its rows to the client. */
        COPY_TO_CLIENT,
        /** {@code COPY (s) TO 'file' | PROGRAM 'cmd'}: runs s and writes outside the database. */
        COPY_TO_SERVER,
        /** {@code FINAL | NEW | OLD TABLE (s)} in a query: s is a data change. */
        DELTA_TABLE,
        /** A delta table inside a statement that is not a plain query: not understood. */
        DELTA_TABLE_ELSEWHERE
    }

    /** The statements carried by one outer statement, and how. */
    record Inner(Carrier carrier, List<String> statements, boolean takesDriverName) {
        Inner(Carrier carrier, List<String> statements) {
            this(carrier, statements, false);
        }
    }

    /** Words that may stand between {@code EXPLAIN} and its statement without parentheses (PostgreSQL, H2, MariaDB). */
    private static final Set<String> EXPLAIN_OPTIONS = Set.of("ANALYZE", "ANALYSE", "VERBOSE", "EXTENDED",
            "PARTITIONS", "FORMAT", "JSON", "TEXT", "XML", "YAML", "TRADITIONAL", "PLAN", "FOR");
    private static final Set<String> DELTA_TABLE_KINDS = Set.of("FINAL", "NEW", "OLD");
    private static final Set<String> QUERY_STARTS = Set.of("SELECT", "WITH", "VALUES", "TABLE");

    private InnerStatements() {
    }

    /** The statements {@code part} carries, or {@code null} when it carries none. */
    static Inner find(Part part) {
        List<Token> tokens = part.tokens();
        List<String> deltaTables = deltaTables(part);
        if (!deltaTables.isEmpty()) {
            boolean query = !tokens.isEmpty() && QUERY_STARTS.contains(word(tokens, 0));
            return new Inner(query ? Carrier.DELTA_TABLE : Carrier.DELTA_TABLE_ELSEWHERE, deltaTables);
        }
        switch (word(tokens, 0)) {
            case "EXPLAIN":
                String explained = explained(part);
                return explained == null ? null : new Inner(Carrier.EXPLAIN, List.of(explained));
            case "SET":
                if (!word(tokens, 1).equals("STATEMENT")) {
                    return null;
                }
                String carried = afterTopLevelFor(part);
                return carried == null ? null : new Inner(Carrier.SET_STATEMENT, List.of(carried));
            case "PREPARE":
                String prepared = prepared(part);
                return prepared == null ? null : new Inner(Carrier.PREPARE, List.of(prepared),
                        DRIVER_STATEMENT_NAME.matcher(part.source(tokens.get(1))).matches());
            case "COPY":
                return copiedQuery(part);
            case "DECLARE":
                String cursor = cursorQuery(part);
                return cursor == null ? null : new Inner(Carrier.DECLARE_CURSOR, List.of(cursor));
            default:
                return null;
        }
    }

    /**
     * For {@code SET STATEMENT ... FOR <statement>}: the text after the first {@code FOR} outside parentheses;
     * {@code null} when there is none (a syntax error on MariaDB: it runs nothing).
     */
    private static String afterTopLevelFor(Part part) {
        for (Token token : part.tokens()) {
            if (token.depth() == 0 && token.is("FOR")) {
                return part.text().substring(token.end());
            }
        }
        return null;
    }

    /**
     * For {@code EXPLAIN [(options)] [option words] <statement>}: that statement, whatever the options (any
     * spelling, quoted or not); null when nothing but names follows (MariaDB's {@code EXPLAIN table}). A
     * parenthesised group counts as options unless it opens with a query ({@code EXPLAIN (SELECT 1)}).
     */
    private static String explained(Part part) {
        List<Token> tokens = part.tokens();
        int i = 1;
        if (i < tokens.size() && tokens.get(i).isPunctuation('(') && !opensQuery(tokens, i + 1)) {
            int close = closing(tokens, i);
            if (close < 0) {
                return null;
            }
            i = close + 1;
        }
        while (i < tokens.size() && (tokens.get(i).isPunctuation('=')
                || tokens.get(i).kind() == Kind.WORD && EXPLAIN_OPTIONS.contains(tokens.get(i).upper()))) {
            i++;
        }
        // MariaDB's EXPLAIN tbl (or db.tbl) describes a table: exactly one name, or two joined by a dot.
        int rest = tokens.size() - i;
        boolean tableName = rest == 1 && KeywordClassifier.isName(tokens.get(i))
                || rest == 3 && KeywordClassifier.isName(tokens.get(i)) && tokens.get(i + 1).isPunctuation('.')
                && KeywordClassifier.isName(tokens.get(i + 2));
        return i >= tokens.size() || tableName && !QUERY_STARTS.contains(word(tokens, i))
                ? null : part.text().substring(tokens.get(i).start());
    }

    private static boolean opensQuery(List<Token> tokens, int at) {
        return at < tokens.size() && (QUERY_STARTS.contains(word(tokens, at)) || tokens.get(at).isPunctuation('('));
    }

    /** {@code PREPARE name [(types)] AS <statement>}: that statement; otherwise null. */
    private static String prepared(Part part) {
        List<Token> tokens = part.tokens();
        if (tokens.size() < 4 || !KeywordClassifier.isName(tokens.get(1))) {
            return null;
        }
        int i = 2;
        if (tokens.get(i).isPunctuation('(')) {
            int close = closing(tokens, i);
            if (close < 0) {
                return null;
            }
            i = close + 1;
        }
        if (i + 1 >= tokens.size() || !tokens.get(i).is("AS")) {
            return null;
        }
        return part.text().substring(tokens.get(i + 1).start());
    }

    /**
     * {@code DECLARE name [options] CURSOR [WITH[OUT] HOLD] FOR <query>}: the query; otherwise null. Only option
     * words may stand between the name and {@code FOR}.
     */
    private static String cursorQuery(Part part) {
        List<Token> tokens = part.tokens();
        if (tokens.size() < 5 || !KeywordClassifier.isName(tokens.get(1))) {
            return null;
        }
        boolean cursor = false;
        for (int i = 2; i + 1 < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (token.kind() != Kind.WORD) {
                return null;
            }
            if (token.is("CURSOR")) {
                cursor = true;
            } else if (token.is("FOR") && cursor) {
                return part.text().substring(tokens.get(i + 1).start());
            }
        }
        return null;
    }

    /** {@code COPY (<query>) TO ...}: the query and where its rows go; otherwise null. */
    private static Inner copiedQuery(Part part) {
        List<Token> tokens = part.tokens();
        if (tokens.size() < 5 || !tokens.get(1).isPunctuation('(')) {
            return null;
        }
        int close = closing(tokens, 1);
        if (close < 0 || close + 2 >= tokens.size() || !tokens.get(close + 1).is("TO")) {
            return null;
        }
        String query = part.text().substring(tokens.get(2).start(), tokens.get(close).start());
        boolean toClient = tokens.get(close + 2).is("STDOUT");
        return new Inner(toClient ? Carrier.COPY_TO_CLIENT : Carrier.COPY_TO_SERVER, List.of(query));
    }

    /** The statements inside H2's {@code FINAL TABLE (...)}, {@code NEW TABLE (...)} and {@code OLD TABLE (...)}. */
    private static List<String> deltaTables(Part part) {
        List<Token> tokens = part.tokens();
        List<String> inner = new ArrayList<>(0);
        for (int i = 0; i + 2 < tokens.size(); i++) {
            Token kind = tokens.get(i);
            if (kind.kind() == Kind.WORD && DELTA_TABLE_KINDS.contains(kind.upper()) && tokens.get(i + 1).is("TABLE")
                    && tokens.get(i + 2).isPunctuation('(')) {
                int close = closing(tokens, i + 2);
                int from = i + 3 < tokens.size() ? tokens.get(i + 3).start() : part.text().length();
                int to = close < 0 ? part.text().length() : tokens.get(close).start();
                inner.add(part.text().substring(Math.min(from, to), to));
            }
        }
        return inner;
    }

    /** The index of the {@code )} closing the {@code (} at {@code open}, or -1 when it is never closed. */
    static int closing(List<Token> tokens, int open) {
        int depth = tokens.get(open).depth();
        for (int i = open + 1; i < tokens.size(); i++) {
            if (tokens.get(i).isPunctuation(')') && tokens.get(i).depth() == depth) {
                return i;
            }
        }
        return -1;
    }
}
