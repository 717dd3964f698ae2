package dev.fencing.jdbc.wrapper;

import dev.fencing.jdbc.audit.SqlStates;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The four ways JDBC runs a statement, and how each reads its result: the one place that knows what
 * {@code execute}, {@code executeUpdate}, {@code executeLargeUpdate} and {@code executeQuery} return.
 * Results are boxed: {@code Boolean}, {@code Integer}, {@code Long} or a raw {@code ResultSet}.
 */
enum Exec {
    EXECUTE, UPDATE, LARGE_UPDATE, QUERY;

    Object run(PreparedStatement statement) throws SQLException {
        switch (this) {
            case EXECUTE:
                return statement.execute();
            case UPDATE:
                return statement.executeUpdate();
            case LARGE_UPDATE:
                return statement.executeLargeUpdate();
            default:
                return statement.executeQuery();
        }
    }

    Object run(Statement statement, String sql, Keys keys) throws SQLException {
        switch (this) {
            case EXECUTE:
                return keys.execute(statement, sql);
            case UPDATE:
                return keys.executeUpdate(statement, sql);
            case LARGE_UPDATE:
                return keys.executeLargeUpdate(statement, sql);
            default:
                return statement.executeQuery(sql);
        }
    }

    /**
     * Reads the caller's result after a prefix guard's result: the statement has just run {@code guard; sql}
     * with {@code execute}, so its first result is the guard's row.
     */
    Object afterPrefixGuard(Statement statement, int guardStatements) throws SQLException {
        boolean rows = false;
        for (int i = 0; i < guardStatements; i++) {
            rows = statement.getMoreResults();
        }
        switch (this) {
            case EXECUTE:
                return rows;
            case UPDATE:
                if (rows) {
                    throw new SQLException("A result was returned when none was expected.",
                            SqlStates.PG_RESULT_NOT_EXPECTED);
                }
                return statement.getUpdateCount();
            case LARGE_UPDATE:
                if (rows) {
                    throw new SQLException("A result was returned when none was expected.",
                            SqlStates.PG_RESULT_NOT_EXPECTED);
                }
                return statement.getLargeUpdateCount();
            default:
                if (!rows) {
                    throw new SQLException("No results were returned by the query.", SqlStates.NO_RESULT_SET);
                }
                return statement.getResultSet();
        }
    }

    /** The result of a statement the driver handled itself without sending it (a {@code SET fencing.*}). */
    Object local() throws SQLException {
        switch (this) {
            case EXECUTE:
                return Boolean.FALSE;
            case UPDATE:
                return 0;
            case LARGE_UPDATE:
                return 0L;
            default:
                throw new SQLException("fencing: SET fencing.* returns no result set", SqlStates.NO_RESULT_SET);
        }
    }
}
