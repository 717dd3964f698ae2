package dev.fencing.jdbc.internal;

import dev.fencing.sql.Analysis;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;

/**
 * What plain, prepared and callable fenced statements share: the owning connection, the one way they execute
 * (through the connection's {@link FencedExecution}), result accessors that never hand out raw objects, and the
 * result of a {@code SET fencing.*} that was handled without the database.
 */
abstract class FencedStatementBase implements Statement {
    final FencedConnectionImpl connection;
    /** The update count of a statement handled locally; -2 when the last result came from the database. */
    private int localCount = -2;

    FencedStatementBase(FencedConnectionImpl connection) {
        this.connection = connection;
    }

    /** The underlying statement whose results are the caller's current ones. */
    abstract Statement current();

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

    // ---- plain delegation to the current statement -------------------------------------------------------

    @Override
    public void cancel() throws SQLException {
        current().cancel();
    }

    @Override
    public void clearWarnings() throws SQLException {
        current().clearWarnings();
    }

    @Override
    public void close() throws SQLException {
        current().close();
    }

    @Override
    public void closeOnCompletion() throws SQLException {
        current().closeOnCompletion();
    }

    @Override
    public int getFetchDirection() throws SQLException {
        return current().getFetchDirection();
    }

    @Override
    public int getFetchSize() throws SQLException {
        return current().getFetchSize();
    }

    @Override
    public long getLargeMaxRows() throws SQLException {
        return current().getLargeMaxRows();
    }

    @Override
    public int getMaxFieldSize() throws SQLException {
        return current().getMaxFieldSize();
    }

    @Override
    public int getMaxRows() throws SQLException {
        return current().getMaxRows();
    }

    @Override
    public int getQueryTimeout() throws SQLException {
        return current().getQueryTimeout();
    }

    @Override
    public int getResultSetConcurrency() throws SQLException {
        return current().getResultSetConcurrency();
    }

    @Override
    public int getResultSetHoldability() throws SQLException {
        return current().getResultSetHoldability();
    }

    @Override
    public int getResultSetType() throws SQLException {
        return current().getResultSetType();
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return current().getWarnings();
    }

    @Override
    public boolean isCloseOnCompletion() throws SQLException {
        return current().isCloseOnCompletion();
    }

    @Override
    public boolean isClosed() throws SQLException {
        return current().isClosed();
    }

    @Override
    public boolean isPoolable() throws SQLException {
        return current().isPoolable();
    }

    @Override
    public void setCursorName(String p1) throws SQLException {
        current().setCursorName(p1);
    }

    @Override
    public void setEscapeProcessing(boolean p1) throws SQLException {
        current().setEscapeProcessing(p1);
    }

    @Override
    public void setFetchDirection(int p1) throws SQLException {
        current().setFetchDirection(p1);
    }

    @Override
    public void setFetchSize(int p1) throws SQLException {
        current().setFetchSize(p1);
    }

    @Override
    public void setLargeMaxRows(long p1) throws SQLException {
        current().setLargeMaxRows(p1);
    }

    @Override
    public void setMaxFieldSize(int p1) throws SQLException {
        current().setMaxFieldSize(p1);
    }

    @Override
    public void setMaxRows(int p1) throws SQLException {
        current().setMaxRows(p1);
    }

    @Override
    public void setPoolable(boolean p1) throws SQLException {
        current().setPoolable(p1);
    }

    @Override
    public void setQueryTimeout(int p1) throws SQLException {
        current().setQueryTimeout(p1);
    }

}
