package dev.fencing.jdbc.wrapper;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

/**
 * An {@link Array} of the fencing driver: the underlying driver's array hands out result sets whose
 * {@code getStatement().getConnection()} is the raw connection (pgjdbc's {@code PgArray}), so its result sets come
 * back fenced. Given back to a statement as a parameter, the underlying array is used.
 */
final class FencedArray implements Array {
    private final FencedConnectionImpl connection;
    private final Array delegate;

    FencedArray(FencedConnectionImpl connection, Array delegate) {
        this.connection = connection;
        this.delegate = delegate;
    }

    /** The underlying array of a parameter value, so the underlying driver sees its own object. */
    static Object unwrapped(Object value) {
        return value instanceof FencedArray fenced ? fenced.delegate : value;
    }

    private ResultSet fenced(ResultSet rs) {
        return Wrappers.resultSet(connection, null, rs);
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
        return fenced(delegate.getResultSet());
    }

    @Override
    public ResultSet getResultSet(Map<String, Class<?>> map) throws SQLException {
        return fenced(delegate.getResultSet(map));
    }

    @Override
    public ResultSet getResultSet(long index, int count) throws SQLException {
        return fenced(delegate.getResultSet(index, count));
    }

    @Override
    public ResultSet getResultSet(long index, int count, Map<String, Class<?>> map) throws SQLException {
        return fenced(delegate.getResultSet(index, count, map));
    }

    @Override
    public String getBaseTypeName() throws SQLException {
        return delegate.getBaseTypeName();
    }

    @Override
    public int getBaseType() throws SQLException {
        return delegate.getBaseType();
    }

    @Override
    public Object getArray() throws SQLException {
        return delegate.getArray();
    }

    @Override
    public Object getArray(Map<String, Class<?>> map) throws SQLException {
        return delegate.getArray(map);
    }

    @Override
    public Object getArray(long index, int count) throws SQLException {
        return delegate.getArray(index, count);
    }

    @Override
    public Object getArray(long index, int count, Map<String, Class<?>> map) throws SQLException {
        return delegate.getArray(index, count, map);
    }

    @Override
    public void free() throws SQLException {
        delegate.free();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
