package dev.fencing.jdbc.wrapper;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A result set of the fencing driver: {@code getStatement()} answers the fenced statement (or {@code null} for
 * metadata), and the row changes of an updatable result set ({@code insertRow}, {@code updateRow},
 * {@code deleteRow}) run fenced, after the guard has locked the epoch row in the same transaction.
 */
final class FencedResultSet extends PassThroughResultSet {
    private final FencedConnectionImpl connection;
    private final Statement owner;
    private final ResultSet delegate;

    FencedResultSet(FencedConnectionImpl connection, Statement owner, ResultSet delegate) {
        this.connection = connection;
        this.owner = owner;
        this.delegate = delegate;
    }

    @Override
    ResultSet delegate() {
        return delegate;
    }

    /** What the audit report names for a row change. */
    private static final String ROW_CHANGE = "updatable ResultSet: insertRow/updateRow/deleteRow";

    @Override
    public Statement getStatement() {
        return owner;
    }

    /** The query timeout of the statement that made this result set, which bounds a row change's guard too. */
    private int queryTimeout() throws SQLException {
        return owner == null ? 0 : owner.getQueryTimeout();
    }

    @Override
    public void insertRow() throws SQLException {
        int timeout = queryTimeout();
        connection.withQueryTimeout(timeout, () -> connection.execution().afterLock(ROW_CHANGE, null, timeout, () -> {
            delegate.insertRow();
            return Boolean.TRUE;
        }));
    }

    @Override
    public void updateRow() throws SQLException {
        int timeout = queryTimeout();
        connection.withQueryTimeout(timeout, () -> connection.execution().afterLock(ROW_CHANGE, null, timeout, () -> {
            delegate.updateRow();
            return Boolean.TRUE;
        }));
    }

    @Override
    public void deleteRow() throws SQLException {
        int timeout = queryTimeout();
        connection.withQueryTimeout(timeout, () -> connection.execution().afterLock(ROW_CHANGE, null, timeout, () -> {
            delegate.deleteRow();
            return Boolean.TRUE;
        }));
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return connection.unwrap(this, delegate, type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }

    @Override
    public Array getArray(String p1) throws SQLException {
        return Wrappers.array(connection, delegate.getArray(p1));
    }

    @Override
    public Array getArray(int p1) throws SQLException {
        return Wrappers.array(connection, delegate.getArray(p1));
    }

    @Override
    public <T> T getObject(String p1, Class<T> p2) throws SQLException {
        return connection.fenced(delegate.getObject(p1, p2), p2);
    }

    @Override
    public Object getObject(String p1, java.util.Map<String, Class<?>> p2) throws SQLException {
        return connection.fenced(delegate.getObject(p1, p2));
    }

    @Override
    public Object getObject(String p1) throws SQLException {
        return connection.fenced(delegate.getObject(p1));
    }

    @Override
    public <T> T getObject(int p1, Class<T> p2) throws SQLException {
        return connection.fenced(delegate.getObject(p1, p2), p2);
    }

    @Override
    public Object getObject(int p1, java.util.Map<String, Class<?>> p2) throws SQLException {
        return connection.fenced(delegate.getObject(p1, p2));
    }

    @Override
    public Object getObject(int p1) throws SQLException {
        return connection.fenced(delegate.getObject(p1));
    }
}
