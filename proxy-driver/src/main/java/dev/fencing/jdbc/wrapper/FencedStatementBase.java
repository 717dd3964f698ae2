package dev.fencing.jdbc.wrapper;

import dev.fencing.sql.Analysis;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What plain, prepared and callable fenced statements share: the owning connection, the one way they execute
 * (through the connection's {@link FencedExecution}), result accessors that never hand out raw objects, and the
 * result of a {@code SET fencing.*} that was handled without the database. The other {@link java.sql.Statement}
 * methods go to {@code current()} through the generated {@link PassThroughStatement}.
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

    /**
     * Runs one execution through the connection's {@link FencedExecution} on {@code route}, and remembers whether
     * its result came from the database or was made here ({@code SET fencing.*}).
     */
    final Object execute(StatementRouter.Route route, String sql, Analysis analysis, Exec exec,
                         FencedExecution.Send send) throws SQLException {
        resultFromDatabase();
        Object result = connection.execution().run(route, sql, analysis, exec, send);
        if (route == StatementRouter.Route.SETTING) {
            localCount = 0;
        }
        return result;
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
