package dev.fencing.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How the fence reads and compares the name of a table, the one place for both: a qualified name read from a
 * statement's tokens ({@code schema.table}, each part quoted or not), and the fold every comparison of a table's
 * own name uses, so that no two places can disagree on whether a name is the epoch table's.
 */
public final class Names {
    private Names() {
    }

    /**
     * A name's own part as the fence compares it: without quotes ({@code "..."}, {@code `...`}, {@code [...]}),
     * folded to upper and then lower case, so that a letter a database folds to an ASCII one (H2 reads
     * {@code fencıng_epoch}, with a dotless i, as {@code FENCING_EPOCH}: found by review) compares as that letter.
     */
    public static String fold(String name) {
        return foldCase(unquoted(name));
    }

    /** The fold of {@link #fold} without unquoting, for a statement's whole text searched for protected names. */
    static String foldCase(String text) {
        return text.toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT);
    }

    /** A name's text without its quotes, a doubled quote inside read as one. */
    static String unquoted(String name) {
        if (name.length() < 2) {
            return name;
        }
        char open = name.charAt(0);
        char close = name.charAt(name.length() - 1);
        if (open == '"' && close == '"' || open == '`' && close == '`') {
            return name.substring(1, name.length() - 1).replace(String.valueOf(open) + open, String.valueOf(open));
        }
        return open == '[' && close == ']' ? name.substring(1, name.length() - 1) : name;
    }

    /**
     * The folded own part of a qualified name given as one string ({@code schema.table}, as JSqlParser hands it
     * back): the part after the last dot outside quotes.
     */
    public static String ownOf(String qualified) {
        char quote = 0;
        int start = 0;
        for (int i = 0; i < qualified.length(); i++) {
            char c = qualified.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '"' || c == '`') {
                quote = c;
            } else if (c == '[') {
                quote = ']';
            } else if (c == '.') {
                start = i + 1;
            }
        }
        return fold(qualified.substring(start));
    }

    /**
     * Whether one part of a written name may be put into SQL as it is: a plain identifier (a letter or {@code _},
     * then letters, digits, {@code _} and {@code $}) or a complete double-quoted one whose quotes inside are doubled.
     */
    public static boolean isPlainOrDoubleQuoted(String part) {
        if (part.length() >= 3 && part.charAt(0) == '"' && part.charAt(part.length() - 1) == '"') {
            String inner = part.substring(1, part.length() - 1);
            return !inner.replace("\"\"", "").contains("\"");
        }
        if (part.isEmpty() || !(Character.isLetter(part.codePointAt(0)) || part.charAt(0) == '_')) {
            return false;
        }
        return part.codePoints().allMatch(c -> Character.isLetterOrDigit(c) || c == '_' || c == '$');
    }

    /** Whether a token can be (a part of) a name: a word or a quoted identifier. */
    static boolean isName(Token token) {
        return token.kind() == Token.Kind.WORD || token.kind() == Token.Kind.QUOTED_IDENTIFIER;
    }

    /**
     * The qualified name starting at token {@code from}: its parts as written (quotes kept), read while a name
     * follows a dot; empty when no name starts there.
     */
    static List<String> qualifiedAt(Part part, int from) {
        List<Token> tokens = part.tokens();
        List<String> parts = new ArrayList<>();
        if (from >= tokens.size() || !isName(tokens.get(from))) {
            return parts;
        }
        parts.add(part.source(tokens.get(from)));
        for (int i = from; i + 2 < tokens.size() && tokens.get(i + 1).isPunctuation('.')
                && isName(tokens.get(i + 2)); i += 2) {
            parts.add(part.source(tokens.get(i + 2)));
        }
        return parts;
    }

    /** The folded own part of the qualified name at {@code from} ({@link #qualifiedAt}), or null when none starts there. */
    static String ownAt(Part part, int from) {
        List<String> parts = qualifiedAt(part, from);
        return parts.isEmpty() ? null : fold(parts.get(parts.size() - 1));
    }

    /** How many tokens the qualified name at {@code from} takes (0 when none starts there). */
    static int lengthAt(Part part, int from) {
        return Math.max(0, qualifiedAt(part, from).size() * 2 - 1);
    }
}
