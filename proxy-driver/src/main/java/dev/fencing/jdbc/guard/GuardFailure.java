package dev.fencing.jdbc.guard;

import dev.fencing.sql.EpochSql;

import java.lang.reflect.Method;
import java.sql.SQLException;

/**
 * The verdict of a failed prefix guard (see {@link EpochSql#prefixGuard()}), recognised by the SQLState only the
 * guard function raises: the mark is above the token (stale, with the mark from the error's DETAIL field) or
 * below it (behind). Any other error is the caller's statement's, returned untouched; the message is never read.
 */
record GuardFailure(boolean stale, long mark) {
    /** The mark when the error's DETAIL field could not be read. */
    static final long UNKNOWN_MARK = -1;

    /** The guard's failure that {@code e} reports, or {@code null} when {@code e} is another error. */
    static GuardFailure of(SQLException e) {
        String state = e.getSQLState();
        if (EpochSql.GUARD_STALE_STATE.equals(state)) {
            return new GuardFailure(true, markIn(e));
        }
        if (EpochSql.GUARD_BEHIND_STATE.equals(state)) {
            return new GuardFailure(false, UNKNOWN_MARK);
        }
        return null;
    }

    /**
     * The DETAIL field of the server's error, which the guard sets to the mark: pgjdbc carries it typed in
     * {@code PSQLException.getServerErrorMessage().getDetail()}, read by reflection so the driver needs no pgjdbc
     * classes. {@link #UNKNOWN_MARK} when it is not there.
     */
    private static long markIn(SQLException e) {
        try {
            Method serverError = e.getClass().getMethod("getServerErrorMessage");
            Object message = serverError.invoke(e);
            if (message == null) {
                return UNKNOWN_MARK;
            }
            Object detail = message.getClass().getMethod("getDetail").invoke(message);
            return detail instanceof String text ? Long.parseLong(text) : UNKNOWN_MARK;
        } catch (ReflectiveOperationException | NumberFormatException | SecurityException notThere) {
            return UNKNOWN_MARK;
        }
    }
}
