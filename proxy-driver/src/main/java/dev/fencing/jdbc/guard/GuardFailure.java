package dev.fencing.jdbc.guard;

import dev.fencing.sql.EpochSql;

import java.lang.reflect.Method;
import java.sql.SQLException;

/**
 * The verdict of a failed prefix guard (see {@link EpochSql#prefixGuard()}), recognised by the SQLState the guard
 * function raises together with the nonce of the send in the error's HINT field: the mark is above the token
 * (stale, with the mark from the error's DETAIL field) or below it (behind). Any other error, a caller's error
 * raising the same SQLState among them, is the caller's statement's, returned untouched; the message is never read.
 */
record GuardFailure(boolean stale, long mark) {
    /** The mark when the error's DETAIL field could not be read. */
    static final long UNKNOWN_MARK = -1;

    /**
     * The guard's failure that {@code e} reports for the send whose nonce was {@code nonce}, or {@code null} when
     * {@code e} is another error: another state, or the guard's state without this send's nonce.
     */
    static GuardFailure of(SQLException e, long nonce) {
        String state = e.getSQLState();
        boolean stale = EpochSql.GUARD_STALE_STATE.equals(state);
        if (!stale && !EpochSql.GUARD_BEHIND_STATE.equals(state)) {
            return null;
        }
        Object fields = serverFields(e);
        if (fields == null || !Long.toString(nonce).equals(field(fields, "getHint"))) {
            return null;
        }
        return new GuardFailure(stale, stale ? markIn(field(fields, "getDetail")) : UNKNOWN_MARK);
    }

    /**
     * The server's fields of the error: pgjdbc carries them typed in {@code PSQLException.getServerErrorMessage()},
     * read by reflection so the driver needs no pgjdbc classes. {@code null} when they are not there.
     */
    private static Object serverFields(SQLException e) {
        try {
            Method serverError = e.getClass().getMethod("getServerErrorMessage");
            return serverError.invoke(e);
        } catch (ReflectiveOperationException | SecurityException notThere) {
            return null;
        }
    }

    /** One text field of the server's error ({@code getHint}, {@code getDetail}), or {@code null}. */
    private static String field(Object fields, String getter) {
        try {
            return fields.getClass().getMethod(getter).invoke(fields) instanceof String text ? text : null;
        } catch (ReflectiveOperationException | SecurityException notThere) {
            return null;
        }
    }

    /** The mark the guard put in DETAIL; {@link #UNKNOWN_MARK} when it is not a number. */
    private static long markIn(String detail) {
        try {
            return detail == null ? UNKNOWN_MARK : Long.parseLong(detail);
        } catch (NumberFormatException notANumber) {
            return UNKNOWN_MARK;
        }
    }
}
