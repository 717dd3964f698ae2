package dev.fencing.jdbc.internal;

import dev.fencing.sql.EpochSql;

import java.sql.SQLException;

/**
 * What the prefix guard's own error says (see {@link EpochSql#prefixGuard()}): the mark is above the token
 * (stale, with the mark) or below it (behind). Any other error is the caller's statement's, returned untouched.
 */
record GuardFailure(boolean stale, long mark) {
    private static final String STALE = EpochSql.GUARD_FAILURE_MARKER + " stale ";
    private static final String BEHIND = EpochSql.GUARD_FAILURE_MARKER + " behind";

    /** The guard's failure that {@code e} reports, or {@code null} when {@code e} is another error. */
    static GuardFailure of(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message == null) {
                continue;
            }
            int at = message.indexOf(STALE);
            if (at >= 0) {
                int from = at + STALE.length();
                int to = from;
                while (to < message.length() && Character.isDigit(message.charAt(to))) {
                    to++;
                }
                if (to > from) {
                    return new GuardFailure(true, Long.parseLong(message.substring(from, to)));
                }
            }
            if (message.contains(BEHIND)) {
                return new GuardFailure(false, 0);
            }
        }
        return null;
    }
}
