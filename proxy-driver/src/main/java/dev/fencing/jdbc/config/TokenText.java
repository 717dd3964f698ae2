package dev.fencing.jdbc.config;

/** Strict reading of a token written as text (SPEC C1): decimal digits only, positive, within a {@code long}. */
public final class TokenText {
    private TokenText() {
    }

    /** The token {@code text} denotes after trimming white space, or -1 when it is not a valid token. */
    public static long parse(String text) {
        if (text == null) {
            return -1;
        }
        String trimmed = text.strip();
        int length = trimmed.length();
        if (length == 0 || length > 19) {
            return -1;
        }
        for (int i = 0; i < length; i++) {
            char c = trimmed.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
        }
        try {
            long value = Long.parseLong(trimmed);
            return value > 0 ? value : -1;
        } catch (NumberFormatException overflow) {
            return -1;
        }
    }
}
