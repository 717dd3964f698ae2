package dev.fencing.sql;

/**
 * Which characters are white space and identifier characters to each database's own lexer, and ASCII-only upper
 * casing: the character classes {@link SqlLexer} reads a text with, kept apart from its scanning of quotes,
 * comments and numbers.
 */
final class SqlCharacters {
    private SqlCharacters() {
    }

    /** Upper-cases ASCII letters only, as PostgreSQL matches key words. */
    static String asciiUpper(String text) {
        char[] chars = text.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            if (chars[i] >= 'a' && chars[i] <= 'z') {
                chars[i] -= 'a' - 'A';
            }
        }
        return new String(chars);
    }

    /**
     * Whether MariaDB starts a {@code --} comment here: at the end of the text, or when the next character is an
     * ASCII space or control character ({@code my_isspace} or {@code my_iscntrl} of the server's lexer).
     */
    static boolean isMariaDbCommentSpace(String sql, int at) {
        if (at >= sql.length()) {
            return true;
        }
        char c = sql.charAt(at);
        return c <= ' ' || c == 0x7F;
    }

    /**
     * White space between tokens as the server sees it. PostgreSQL: only {@code [ \t\n\r\f]} (and {@code \v}
     * since 16; either reading splits alike, as {@code \v} is no identifier character); every other character
     * from U+0080 on is an identifier character there, no-break spaces included. H2: any character up to U+0020
     * and Unicode space separators.
     */
    static boolean isSpaceAt(String sql, int at, Dialect dialect) {
        char c = sql.charAt(at);
        switch (dialect) {
            case POSTGRESQL:
                return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\u000B';
            case H2:
                return c <= ' ' || Character.isSpaceChar(sql.codePointAt(at));
            default:
                return isSpace(c);
        }
    }

    /**
     * White space for MariaDB/MySQL and unknown databases: ASCII's {@code [ \t\n\u000B\f\r]} only, as the
     * server's {@code my_isspace} reads utf8mb4; a no-break space is an identifier character there (found by review).
     */
    static boolean isSpace(char c) {
        return c == ' ' || c >= '\t' && c <= '\r';
    }

    /**
     * MariaDB's unquoted identifier characters ("Identifier Names"): {@code [0-9a-zA-Z$_]} and every character from
     * U+0080 on, so a name may start with a digit ({@code 1fX}) or a currency sign ({@code €X}).
     */
    private static boolean isWordChar(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
                || c >= 0x80;
    }

    /**
     * Whether an identifier (or key word) starts at {@code at}. PostgreSQL: {@code [A-Za-z\200-\377_]}, where
     * every character from U+0080 on reaches the server as bytes from 0x80 on, except a lone surrogate, which
     * pgjdbc sends as {@code ?}. H2: {@link Character#isJavaIdentifierStart}, {@code $} aside. MariaDB: see
     * {@link #isWordChar}.
     */
    static boolean isWordStart(String sql, int at, Dialect dialect) {
        char c = sql.charAt(at);
        switch (dialect) {
            case POSTGRESQL:
                return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c >= 0x80 && !isLoneSurrogate(sql, at);
            case H2:
                return c != '$' && Character.isJavaIdentifierStart(sql.codePointAt(at));
            default:
                return isWordChar(c);
        }
    }

    /** Whether the identifier goes on at {@code at}: PostgreSQL adds digits and {@code $}; H2 Java's identifier parts. */
    static boolean isWordPart(String sql, int at, Dialect dialect) {
        char c = sql.charAt(at);
        switch (dialect) {
            case POSTGRESQL:
                return isWordStart(sql, at, dialect) || c >= '0' && c <= '9' || c == '$';
            case H2:
                return Character.isJavaIdentifierPart(sql.codePointAt(at));
            default:
                return isWordChar(c);
        }
    }

    private static boolean isLoneSurrogate(String sql, int at) {
        char c = sql.charAt(at);
        if (Character.isHighSurrogate(c)) {
            return at + 1 >= sql.length() || !Character.isLowSurrogate(sql.charAt(at + 1));
        }
        return Character.isLowSurrogate(c) && (at == 0 || !Character.isHighSurrogate(sql.charAt(at - 1)));
    }
}
