package dev.fencing.jdbc.wrapper;

import dev.fencing.sql.Analysis;

import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.SQLException;

/**
 * A {@link CallableStatement} of the fencing driver. A procedure call may write anything, so a call that is a
 * mutation always runs untouched after the guard has locked the epoch row in the same transaction. Out and named
 * parameters go straight to the call ({@link PassThroughCallableStatement}, generated), except the values that
 * may lead back to the raw connection.
 */
final class FencedCallableStatement extends FencedPreparedStatement implements PassThroughCallableStatement {
    private final CallableStatement callable;

    FencedCallableStatement(FencedConnectionImpl connection, String sql, Analysis analysis, CallableStatement callable)
            throws SQLException {
        super(connection, sql, analysis, false, text -> callable, false);
        this.callable = callable;
    }

    @Override
    public CallableStatement callable() {
        return callable;
    }

    // ---- values read back that may lead to the raw connection ---------------------------------------------

    @Override
    public Array getArray(String p1) throws SQLException {
        return Wrappers.array(connection, callable.getArray(p1));
    }

    @Override
    public Array getArray(int p1) throws SQLException {
        return Wrappers.array(connection, callable.getArray(p1));
    }

    @Override
    public <T> T getObject(String p1, Class<T> p2) throws SQLException {
        return connection.fenced(callable.getObject(p1, p2), p2);
    }

    @Override
    public Object getObject(String p1, java.util.Map<String, Class<?>> p2) throws SQLException {
        return connection.fenced(callable.getObject(p1, p2));
    }

    @Override
    public Object getObject(String p1) throws SQLException {
        return connection.fenced(callable.getObject(p1));
    }

    @Override
    public <T> T getObject(int p1, Class<T> p2) throws SQLException {
        return connection.fenced(callable.getObject(p1, p2), p2);
    }

    @Override
    public Object getObject(int p1, java.util.Map<String, Class<?>> p2) throws SQLException {
        return connection.fenced(callable.getObject(p1, p2));
    }

    @Override
    public Object getObject(int p1) throws SQLException {
        return connection.fenced(callable.getObject(p1));
    }
}
