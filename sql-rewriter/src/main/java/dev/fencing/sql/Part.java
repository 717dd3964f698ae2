package dev.fencing.sql;

import java.util.List;

/** One statement of a text: its own text, its tokens, how many {@code ?} markers and how deep its parentheses go. */
record Part(String text, List<Token> tokens, int markers, int maxDepth) {
    /**
     * The text with everything between tokens (white space and comments) turned into spaces, offsets kept: what
     * the parser may read, so that its own comment rules (JSqlParser ends {@code #} comments at {@code \r},
     * MariaDB does not) never decide what a statement is.
     */
    String tokensOnly() {
        char[] out = new char[text.length()];
        java.util.Arrays.fill(out, ' ');
        for (Token token : tokens) {
            text.getChars(token.start(), token.end(), out, token.start());
        }
        return new String(out);
    }

    String source(Token token) {
        return text.substring(token.start(), token.end());
    }
}
