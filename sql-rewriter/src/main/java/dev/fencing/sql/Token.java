package dev.fencing.sql;

/** One token: its kind, where it is in its statement, how deeply parenthesised, and a word upper-cased. */
record Token(Kind kind, int start, int end, int depth, String upper) {
    /** Kinds of token; comments and whitespace yield none. */
    enum Kind { WORD, STRING, QUOTED_IDENTIFIER, MARKER, PUNCTUATION }

    boolean is(String word) {
        return kind == Kind.WORD && upper.equals(word);
    }

    boolean isPunctuation(char c) {
        return kind == Kind.PUNCTUATION && end - start == 1 && upper.charAt(0) == c;
    }
}
