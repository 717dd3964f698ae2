package dev.fencing.jdbc.testsupport;

import java.sql.SQLException;
import java.sql.SQLWarning;

/**
 * What a stub statement answers to one execution: an update count, rows, or an exception to throw, and optionally
 * a warning. Immutable, so one answer can be handed out at every execution without allocating.
 */
public final class Answer {
    /** The stub's default: one changed row to updates; to queries one row whose every column reads 1 (text "t1"). */
    public static final Answer DEFAULT = new Answer(1, null, false, null, null);

    final int count;
    /** The rows of a query; {@code null} for the one row whose every column reads 1 (see {@link #DEFAULT}). */
    final Object[][] rows;
    /** Whether {@code execute} reports a result set first (a query) rather than an update count. */
    final boolean query;
    final SQLException failure;
    final SQLWarning warning;

    private Answer(int count, Object[][] rows, boolean query, SQLException failure, SQLWarning warning) {
        this.count = count;
        this.rows = rows;
        this.query = query;
        this.failure = failure;
        this.warning = warning;
    }

    /** A write that changed {@code count} rows. */
    public static Answer count(int count) {
        return new Answer(count, new Object[0][], false, null, null);
    }

    /** A query returning {@code rows} (each an array of column values, 1-based in JDBC's reading). */
    public static Answer rows(Object[]... rows) {
        return new Answer(-1, rows, true, null, null);
    }

    /** Execution throws {@code failure}. */
    public static Answer fail(SQLException failure) {
        return new Answer(-1, null, false, failure, null);
    }

    /** This answer, with {@code warning} reported by the statement's {@code getWarnings()} after it ran. */
    public Answer withWarning(SQLWarning warning) {
        return new Answer(count, rows, query, failure, warning);
    }

    /** Throws the failure this answer stands for, if any. */
    void throwIfFailure() throws SQLException {
        if (failure != null) {
            throw failure;
        }
    }
}
