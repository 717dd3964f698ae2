package dev.fencing.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A cheap pass over SQL text that knows quotes, dollar quotes and comments: it splits the text on top-level
 * {@code ;} and yields the tokens of each statement, so most texts are classified without a parser.
 */
final class SqlLexer {
    /** Kinds of token; comments and whitespace yield none. */
    enum Kind { WORD, STRING, QUOTED_IDENTIFIER, MARKER, PUNCTUATION }

    /** One token: its kind, where it is in its statement, how deeply parenthesised, and a word upper-cased. */
    record Token(Kind kind, int start, int end, int depth, String upper) {
        boolean is(String word) {
            return kind == Kind.WORD && upper.equals(word);
        }

        boolean isPunctuation(char c) {
            return kind == Kind.PUNCTUATION && end - start == 1 && upper.charAt(0) == c;
        }
    }

    /** One statement of a text: its own text, its tokens, how many {@code ?} markers and how deep its parentheses go. */
    record Part(String text, List<Token> tokens, int markers, int maxDepth) {
        String source(Token token) {
            return text.substring(token.start(), token.end());
        }
    }

    private final String sql;
    private final Dialect dialect;
    private final boolean backslashStrings;
    private final List<Part> parts = new ArrayList<>();
    private int pos;
    private int partStart;
    private List<Token> tokens = new ArrayList<>();
    private int markers;
    private int depth;
    private int maxDepth;
    private boolean executableComment;

    private SqlLexer(String sql, Dialect dialect, boolean backslashStrings) {
        this.sql = sql;
        this.dialect = dialect;
        this.backslashStrings = backslashStrings;
    }

    /** The statements of {@code sql}, without empty ones (only whitespace or comments). */
    static List<Part> split(String sql, Dialect dialect) {
        return split(sql, dialect, dialect == Dialect.MARIADB);
    }

    /**
     * The statements of {@code sql} read with or without backslash escapes in {@code '...'} strings. A session can
     * switch between the two (PostgreSQL's {@code standard_conforming_strings}, MariaDB's
     * {@code NO_BACKSLASH_ESCAPES}), so a text is only understood when both readings agree.
     */
    static List<Part> split(String sql, Dialect dialect, boolean backslashStrings) {
        SqlLexer lexer = new SqlLexer(sql, dialect, backslashStrings);
        lexer.run();
        return lexer.parts;
    }

    /**
     * Whether {@code sql} holds a MariaDB/MySQL executable comment ({@code /*! ... *}{@code /}, {@code /*M! ...}),
     * whose content the server runs as SQL although it looks like a comment.
     */
    static boolean hasExecutableComment(String sql, Dialect dialect) {
        if (dialect != Dialect.MARIADB || !sql.contains("/*!") && !sql.contains("/*M!")) {
            return false;
        }
        SqlLexer lexer = new SqlLexer(sql, dialect, true);
        lexer.run();
        return lexer.executableComment;
    }

    /** Whether a session setting can change where {@code '...'} strings end in this dialect. */
    static boolean stringsDependOnSession(Dialect dialect) {
        return dialect == Dialect.POSTGRESQL || dialect == Dialect.MARIADB;
    }

    private void run() {
        int n = sql.length();
        while (pos < n) {
            char c = sql.charAt(pos);
            int start = pos;
            if (isSpace(c)) {
                pos++;
            } else if (c == '-' && peek(1) == '-' && (dialect != Dialect.MARIADB || isSpaceOrEnd(pos + 2))
                    || c == '#' && dialect == Dialect.MARIADB || c == '/' && peek(1) == '/' && dialect == Dialect.H2) {
                skipLineComment();
            } else if (c == '/' && peek(1) == '*') {
                skipBlockComment();
            } else if (c == ';' && depth <= 0) {
                endPart(start);
                pos++;
                partStart = pos;
            } else if (c == '\'') {
                skipQuoted('\'', backslashStrings);
                add(Kind.STRING, start);
            } else if (c == '"') {
                skipQuoted('"', dialect == Dialect.MARIADB && backslashStrings);
                add(dialect == Dialect.MARIADB ? Kind.STRING : Kind.QUOTED_IDENTIFIER, start);
            } else if (c == '`') {
                skipQuoted('`', false);
                add(Kind.QUOTED_IDENTIFIER, start);
            } else if ((c == 'E' || c == 'e') && peek(1) == '\'' && dialect == Dialect.POSTGRESQL) {
                pos++;
                skipQuoted('\'', true);
                add(Kind.STRING, start);
            } else if (c == '$' && dollarQuotes() && dollarTagEnd() > 0) {
                skipDollarQuoted();
                add(Kind.STRING, start);
            } else if (isWordChar(c)) {
                while (pos < n && isWordChar(sql.charAt(pos))) {
                    pos++;
                }
                add(Kind.WORD, start);
            } else if (c == '?') {
                pos++;
                markers++;
                add(Kind.MARKER, start);
            } else {
                pos++;
                if (c == '(') {
                    add(Kind.PUNCTUATION, start);
                    depth++;
                    maxDepth = Math.max(maxDepth, depth);
                } else {
                    if (c == ')') {
                        depth--;
                    }
                    add(Kind.PUNCTUATION, start);
                }
            }
        }
        endPart(n);
    }

    private void add(Kind kind, int start) {
        String upper = kind == Kind.WORD || kind == Kind.PUNCTUATION ? sql.substring(start, pos).toUpperCase(Locale.ROOT) : null;
        tokens.add(new Token(kind, start - partStart, pos - partStart, depth, upper));
    }

    private void endPart(int end) {
        if (!tokens.isEmpty()) {
            parts.add(new Part(sql.substring(partStart, end), List.copyOf(tokens), markers, maxDepth));
        }
        tokens = new ArrayList<>();
        markers = 0;
        maxDepth = 0;
    }

    private char peek(int ahead) {
        int at = pos + ahead;
        return at < sql.length() ? sql.charAt(at) : '\0';
    }

    private boolean isSpaceOrEnd(int at) {
        return at >= sql.length() || Character.isWhitespace(sql.charAt(at));
    }

    private boolean dollarQuotes() {
        return dialect == Dialect.POSTGRESQL || dialect == Dialect.H2;
    }

    /** H2 has {@code $$...$$} only; PostgreSQL also has tagged {@code $tag$...$tag$}. */
    private boolean dollarTagsAllowed() {
        return dialect == Dialect.POSTGRESQL;
    }

    /**
     * White space as the databases see it: H2 also separates words with no-break spaces (U+00A0, U+2007, U+202F),
     * which {@link Character#isWhitespace} excludes; PostgreSQL only with ASCII white space, where treating more as
     * white space only shows the classifier more words.
     */
    static boolean isSpace(char c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c);
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    private void skipLineComment() {
        while (pos < sql.length() && sql.charAt(pos) != '\n' && sql.charAt(pos) != '\r') {
            pos++;
        }
    }

    private void skipBlockComment() {
        executableComment |= dialect == Dialect.MARIADB && (sql.startsWith("/*!", pos) || sql.startsWith("/*M!", pos));
        boolean nested = dialect == Dialect.POSTGRESQL || dialect == Dialect.H2;
        int level = 0;
        while (pos < sql.length()) {
            if (sql.startsWith("/*", pos) && (nested || level == 0)) {
                level++;
                pos += 2;
            } else if (sql.startsWith("*/", pos)) {
                level--;
                pos += 2;
                if (level == 0) {
                    return;
                }
            } else {
                pos++;
            }
        }
    }

    /** Skips a quoted run starting at {@code pos}; a doubled quote stays inside, and so does an escaped one when allowed. */
    private void skipQuoted(char quote, boolean backslashEscapes) {
        pos++;
        while (pos < sql.length()) {
            char c = sql.charAt(pos);
            if (backslashEscapes && c == '\\') {
                pos += 2;
            } else if (c == quote) {
                if (peek(1) == quote) {
                    pos += 2;
                } else {
                    pos++;
                    return;
                }
            } else {
                pos++;
            }
        }
        pos = sql.length();
    }

    /** The end (exclusive) of a {@code $tag$} opening at {@code pos}, or -1 when {@code $} starts no dollar quote. */
    private int dollarTagEnd() {
        int i = pos + 1;
        if (i < sql.length() && sql.charAt(i) == '$') {
            return i + 1;
        }
        if (!dollarTagsAllowed() || i < sql.length() && Character.isDigit(sql.charAt(i))) {
            return -1;
        }
        while (i < sql.length() && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
            i++;
        }
        return i < sql.length() && sql.charAt(i) == '$' ? i + 1 : -1;
    }

    private void skipDollarQuoted() {
        String tag = sql.substring(pos, dollarTagEnd());
        int close = sql.indexOf(tag, pos + tag.length());
        pos = close < 0 ? sql.length() : close + tag.length();
    }
}
