package dev.fencing.sql;

/**
 * The one rule for resource names, checked wherever a name enters the driver or the issuer: 1 to 200 characters,
 * each an ASCII letter or digit or one of {@code _ . : / @ + = -}. No quote, backslash, white space or non-ASCII
 * character can pass, so a name written into SQL as a string literal means the same under every quoting mode
 * (PostgreSQL's {@code standard_conforming_strings}, MariaDB's backslash escapes) and every client encoding.
 */
public final class ResourceName {
    /** The longest name: the width of the epoch and lease tables' {@code resource} column. */
    public static final int MAX_LENGTH = 200;

    /** The characters besides ASCII letters and digits that a name may hold. */
    public static final String PUNCTUATION = "_.:/@+=-";

    private ResourceName() {
    }

    /** Whether {@code c} may appear in a resource name. */
    public static boolean isAllowed(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || PUNCTUATION.indexOf(c) >= 0;
    }

    /** Why {@code name} is not a valid resource name, or {@code null} when it is one. */
    public static String problem(String name) {
        if (name == null || name.isEmpty()) {
            return "a resource name cannot be empty";
        }
        if (name.length() > MAX_LENGTH) {
            return "a resource name has at most " + MAX_LENGTH + " characters, '" + shown(name) + "' has "
                    + name.length();
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!isAllowed(c)) {
                return "resource name '" + shown(name) + "' holds " + describe(c) + " at position " + (i + 1)
                        + "; a resource name is 1 to " + MAX_LENGTH + " characters from A-Z a-z 0-9 and "
                        + PUNCTUATION;
            }
        }
        return null;
    }

    /** {@code name} when it is a valid resource name; otherwise an {@link IllegalArgumentException} saying why. */
    public static String require(String name) {
        String problem = problem(name);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return name;
    }

    private static String describe(char c) {
        return c >= 0x21 && c < 0x7f ? "'" + c + "'" : String.format("U+%04X", (int) c);
    }

    /** The name for a message: at most 40 characters, control characters shown as {@code ?}. */
    private static String shown(String name) {
        String cut = name.length() > 40 ? name.substring(0, 40) + "..." : name;
        StringBuilder out = new StringBuilder(cut.length());
        cut.codePoints().forEach(cp -> out.appendCodePoint(Character.isISOControl(cp) ? '?' : cp));
        return out.toString();
    }
}
