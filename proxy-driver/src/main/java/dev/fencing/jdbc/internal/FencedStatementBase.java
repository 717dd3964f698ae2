package dev.fencing.jdbc.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What plain, prepared and callable fenced statements share: the owning connection, result accessors that
 * never hand out raw objects, and the result of a {@code SET fencing.*} that was handled without the database.
 * The other {@link java.sql.Statement} methods go to {@code current()} through the generated
 * {@link PassThroughStatement}.
 */
abstract class FencedStatementBase extends PassThroughStatement {
    final FencedConnectionImpl connection;
    /** The update count of a statement handled locally; -2 when the last result came from the database. */
    private int localCount = -2;

    FencedStatementBase(FencedConnectionImpl connection) {
        this.connection = connection;
    }

    final void resultFromDatabase() {
        localCount = -2;
    }

    final Object handledLocally(Exec exec) throws SQLException {
        localCount = 0;
        return exec.local();
    }

    final ResultSet wrap(ResultSet rs) {
        return Wrappers.resultSet(connection, this, rs);
    }

    @Override
    public final Connection getConnection() {
        return connection;
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
        return localCount != -2 ? null : wrap(current().getResultSet());
    }

    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
        return wrap(current().getGeneratedKeys());
    }

    @Override
    public int getUpdateCount() throws SQLException {
        return localCount != -2 ? localCount : current().getUpdateCount();
    }

    @Override
    public long getLargeUpdateCount() throws SQLException {
        return localCount != -2 ? localCount : current().getLargeUpdateCount();
    }

    @Override
    public boolean getMoreResults() throws SQLException {
        if (localCount != -2) {
            localCount = -1;
            return false;
        }
        return current().getMoreResults();
    }

    @Override
    public boolean getMoreResults(int current) throws SQLException {
        if (localCount != -2) {
            localCount = -1;
            return false;
        }
        return current().getMoreResults(current);
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return connection.unwrap(this, current(), type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
