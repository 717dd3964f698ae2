package dev.fencing.sql;

import dev.fencing.sql.Token.Kind;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A cheap pass over SQL text that knows quotes, dollar quotes and comments: it splits the text on top-level
 * {@code ;} and yields the tokens of each statement, so most texts are classified without a parser.
 */
final class SqlLexer {
    /** A complete {@code '...'} string inside H2's {@code [...]} that holds no bracket (see noteH2ModeSyntax). */
    private static final Pattern BRACKETED_STRING = Pattern.compile("'(?:[^'\\[\\]]|'')*'");

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
    private boolean unclear;

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

    /**
     * Whether the server is known to end the strings, comments and statements of {@code sql} where {@link #split}
     * does, whatever its version and session settings say (C9). Not so when the text reads differently with and
     * without backslash escapes in {@code '...'} strings (PostgreSQL's {@code standard_conforming_strings},
     * MariaDB's {@code NO_BACKSLASH_ESCAPES}), when an identifier character follows a number (an error on
     * PostgreSQL 15, a new token on older servers), or when an H2 compatibility mode would read {@code [...]} or
     * {@code #} otherwise. Such a text must not pass as read-only.
     */
    /**
     * Whether one reading of {@code sql}, with or without backslash escapes in its strings, ends them, its comments
     * and statements where the server does in that mode (see {@link #isClear(String, Dialect)}).
     */
    static boolean isClear(String sql, Dialect dialect, boolean backslashStrings) {
        SqlLexer lexer = new SqlLexer(sql, dialect, backslashStrings);
        lexer.run();
        return !lexer.unclear;
    }

    /** {@link #hasExecutableComment(String, Dialect)} in one reading of the text's strings. */
    static boolean hasExecutableComment(String sql, Dialect dialect, boolean backslashStrings) {
        if (dialect != Dialect.MARIADB || !sql.contains("/*!") && !sql.contains("/*M!")) {
            return false;
        }
        SqlLexer lexer = new SqlLexer(sql, dialect, backslashStrings);
        lexer.run();
        return lexer.executableComment;
    }

    static boolean isClear(String sql, Dialect dialect) {
        SqlLexer lexer = new SqlLexer(sql, dialect, dialect == Dialect.MARIADB);
        lexer.run();
        if (lexer.unclear) {
            return false;
        }
        if ((dialect == Dialect.POSTGRESQL || dialect == Dialect.MARIADB) && sql.indexOf('\\') >= 0) {
            SqlLexer other = new SqlLexer(sql, dialect, dialect != Dialect.MARIADB);
            other.run();
            return !other.unclear && other.parts.equals(lexer.parts);
        }
        return true;
    }

    private void run() {
        int n = sql.length();
        while (pos < n) {
            char c = sql.charAt(pos);
            int start = pos;
            if (SqlCharacters.isSpaceAt(sql, pos, dialect)) {
                pos++;
            } else if (c == '-' && peek(1) == '-'
                    && (dialect != Dialect.MARIADB || SqlCharacters.isMariaDbCommentSpace(sql, pos + 2))
                    || c == '#' && dialect == Dialect.MARIADB || c == '/' && peek(1) == '/' && dialect == Dialect.H2) {
                skipLineComment();
            } else if (c == '/' && peek(1) == '*') {
                skipBlockComment();
            } else if (c == ';' && depth <= 0) {
                endPart(start);
                pos++;
                partStart = pos;
            } else if (c == '\'') {
                skipString(backslashStrings);
                add(Kind.STRING, start);
            } else if (c == '"') {
                skipQuoted('"', dialect == Dialect.MARIADB && backslashStrings);
                add(dialect == Dialect.MARIADB ? Kind.STRING : Kind.QUOTED_IDENTIFIER, start);
            } else if (c == '`' && dialect != Dialect.POSTGRESQL) {
                skipQuoted('`', false);
                add(Kind.QUOTED_IDENTIFIER, start);
            } else if (dialect == Dialect.POSTGRESQL && postgresPrefixed(c, start)) {
                continue;
            } else if (c == '$' && dialect == Dialect.POSTGRESQL) {
                postgresDollar(start);
            } else if (c == '$' && dialect == Dialect.H2) {
                h2Dollar(start);
            } else if (c >= '0' && c <= '9' && (dialect == Dialect.POSTGRESQL || dialect == Dialect.H2)) {
                skipNumber();
                add(Kind.WORD, start);
            } else if (SqlCharacters.isWordStart(sql, pos, dialect)) {
                pos += Character.charCount(sql.codePointAt(pos));
                while (pos < n && SqlCharacters.isWordPart(sql, pos, dialect)) {
                    pos += Character.charCount(sql.codePointAt(pos));
                }
                add(Kind.WORD, start);
            } else if (c == '?') {
                pos++;
                markers++;
                add(Kind.MARKER, start);
            } else {
                if (dialect == Dialect.H2 || dialect == Dialect.MARIADB && c == '[') {
                    // H2's compatibility modes and MariaDB's sql_mode=MSSQL read [...] as a quoted identifier
                    noteH2ModeSyntax(c);
                }
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
        String upper = null;
        if (kind == Kind.WORD || kind == Kind.PUNCTUATION) {
            String text = sql.substring(start, pos);
            // PostgreSQL matches keywords in ASCII only; H2 upper-cases identifiers with Java's rules.
            upper = dialect == Dialect.POSTGRESQL ? SqlCharacters.asciiUpper(text) : text.toUpperCase(Locale.ROOT);
        }
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

    /**
     * PostgreSQL's strings with a prefix, which only count where the prefix starts a token: {@code E'...'}
     * (backslash escapes whatever the session says), {@code B'...'} and {@code X'...'} (never), {@code N'...'}
     * (as plain strings), {@code U&'...'} (never). Also {@code U&"..."}, a quoted identifier.
     */
    private boolean postgresPrefixed(char c, int start) {
        char next = peek(1);
        if ((c == 'E' || c == 'e') && next == '\'') {
            pos++;
            skipString(true);
        } else if ((c == 'B' || c == 'b' || c == 'X' || c == 'x') && next == '\'') {
            pos++;
            skipString(false);
        } else if ((c == 'N' || c == 'n') && next == '\'') {
            pos++;
            skipString(backslashStrings);
        } else if ((c == 'U' || c == 'u') && next == '&' && peek(2) == '\'') {
            pos += 2;
            skipString(false);
        } else if ((c == 'U' || c == 'u') && next == '&' && peek(2) == '"') {
            pos += 2;
            skipQuoted('"', false);
            add(Kind.QUOTED_IDENTIFIER, start);
            return true;
        } else {
            return false;
        }
        add(Kind.STRING, start);
        return true;
    }

    /**
     * A {@code $} that no identifier swallowed, on PostgreSQL: a dollar quote {@code $tag$...$tag$} when a tag
     * follows ({@code \$([A-Za-z\200-\377_][A-Za-z\200-\377_0-9]*)?\$}), a parameter {@code $1} when digits
     * follow, otherwise a character of its own.
     */
    private void postgresDollar(int start) {
        int tagEnd = dollarTagEnd();
        if (tagEnd > 0) {
            String tag = sql.substring(pos, tagEnd);
            int close = sql.indexOf(tag, tagEnd);
            pos = close < 0 ? sql.length() : close + tag.length();
            add(Kind.STRING, start);
        } else if (peek(1) >= '0' && peek(1) <= '9') {
            pos++;
            skipDigits("0123456789");
            add(Kind.WORD, start);
            noteJunkAfterNumber();
        } else {
            pos++;
            add(Kind.PUNCTUATION, start);
        }
    }

    /** The end (exclusive) of a PostgreSQL {@code $tag$} opening at {@code pos}, or -1 when none opens there. */
    private int dollarTagEnd() {
        int i = pos + 1;
        if (i < sql.length() && sql.charAt(i) != '$') {
            if (!SqlCharacters.isWordStart(sql, i, dialect)) {
                return -1;
            }
            while (i < sql.length() && sql.charAt(i) != '$' && SqlCharacters.isWordPart(sql, i, dialect)) {
                i++;
            }
        }
        return i < sql.length() && sql.charAt(i) == '$' ? i + 1 : -1;
    }

    /** H2: {@code $$...$$} is a string; {@code $} with or without digits is a parameter. */
    private void h2Dollar(int start) {
        if (peek(1) == '$') {
            int close = sql.indexOf("$$", pos + 2);
            pos = close < 0 ? sql.length() : close + 2;
            add(Kind.STRING, start);
        } else {
            pos++;
            skipDigits("0123456789");
            add(Kind.WORD, start);
        }
    }

    /**
     * Skips a numeric literal: digits with {@code _} between them, a fraction, an exponent, {@code 0x}/{@code 0o}/
     * {@code 0b} integers (PostgreSQL 16, H2) and H2's {@code L} suffix. An identifier character right after it
     * makes the text unclear: PostgreSQL 15 rejects it, older servers start a new token there.
     */
    private void skipNumber() {
        char radix = Character.toLowerCase(peek(1));
        if (sql.charAt(pos) == '0' && (radix == 'x' || radix == 'o' || radix == 'b')) {
            pos += 2;
            skipDigits(radix == 'x' ? "0123456789abcdefABCDEF" : radix == 'o' ? "01234567" : "01");
        } else {
            skipDigits("0123456789.");
            char e = peek(0);
            char sign = peek(1);
            if ((e == 'e' || e == 'E') && (sign >= '0' && sign <= '9'
                    || (sign == '+' || sign == '-') && peek(2) >= '0' && peek(2) <= '9')) {
                pos += sign == '+' || sign == '-' ? 2 : 1;
                skipDigits("0123456789");
            }
        }
        if (dialect == Dialect.H2 && (peek(0) == 'L' || peek(0) == 'l')) {
            pos++;
        }
        noteJunkAfterNumber();
    }

    /** Skips characters out of {@code allowed}, and single {@code _} between two of them. */
    private void skipDigits(String allowed) {
        while (pos < sql.length()) {
            char c = sql.charAt(pos);
            if (allowed.indexOf(c) >= 0 || c == '_' && allowed.indexOf(peek(1)) >= 0 && peek(1) != '.' && pos > 0
                    && allowed.indexOf(sql.charAt(pos - 1)) >= 0) {
                pos++;
            } else {
                return;
            }
        }
    }

    private void noteJunkAfterNumber() {
        if (pos < sql.length() && sql.charAt(pos) != '$' && SqlCharacters.isWordPart(sql, pos, dialect)) {
            unclear = true;
        }
    }

    /**
     * H2 reads {@code [name]} as a quoted identifier and {@code #} as an identifier character in some
     * compatibility modes ({@code SET MODE MSSQLServer}), which a session can switch. The text stays clear when
     * both readings end strings, comments and statements alike: a {@code [...]} holding no dollar, semicolon,
     * double quote, backquote or comment start outside complete {@code '...'} strings, and strings that hold no
     * bracket (so {@code ARRAY['a', 'b']} is clear: one reading sees two strings, the other one identifier, and
     * both end it at the same {@code ]}); and no {@code #} that would pull a {@code $} into an identifier.
     */
    private void noteH2ModeSyntax(char c) {
        if (c == '[') {
            int close = sql.indexOf(']', pos + 1);
            String inside = close < 0 ? "" : BRACKETED_STRING.matcher(sql.substring(pos + 1, close)).replaceAll(" ");
            if (close < 0 || inside.matches("(?s).*(['\"`$;#]|--|//|/\\*).*")) {
                unclear = true;
            }
        } else if (c == '#') {
            int i = pos + 1;
            while (i < sql.length() && sql.charAt(i) != '$' && SqlCharacters.isWordPart(sql, i, dialect)) {
                i++;
            }
            unclear |= i < sql.length() && sql.charAt(i) == '$';
        }
    }

    /** A {@code '...'} string; on PostgreSQL with its continuations ({@code 'a'<newline>'b'}) in the same mode. */
    private void skipString(boolean backslashEscapes) {
        skipQuoted('\'', backslashEscapes);
        if (dialect != Dialect.POSTGRESQL) {
            return;
        }
        for (int next = continuation(); next >= 0; next = continuation()) {
            pos = next;
            skipQuoted('\'', backslashEscapes);
        }
    }

    /**
     * Where a PostgreSQL string continues: white space and {@code --} comments holding at least one newline, then
     * a quote ({@code quotecontinue} in the scanner). Returns the quote's index, or -1.
     */
    private int continuation() {
        boolean newline = false;
        int i = pos;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\n' || c == '\r') {
                newline = true;
                i++;
            } else if (c == ' ' || c == '\t' || c == '\f' || c == '\u000B') {
                i++;
            } else if (c == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-') {
                while (i < sql.length() && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') {
                    i++;
                }
            } else {
                break;
            }
        }
        return newline && i < sql.length() && sql.charAt(i) == '\'' ? i : -1;
    }

    /** A line comment ends at a newline; PostgreSQL and H2 also end it at a carriage return, MariaDB does not. */
    private void skipLineComment() {
        while (pos < sql.length() && sql.charAt(pos) != '\n' && (sql.charAt(pos) != '\r' || dialect == Dialect.MARIADB)) {
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
}
