package dev.fencing.bench.jmh;

import java.sql.Connection;
import java.sql.ResultSet;

/**
 * A prepared (and plain) statement of {@link StubConnection}: parameters are ignored, every update changes one row,
 * every query yields one row whose columns are all 1 (so the epoch guard reads mark 1), and nothing is allocated
 * per execute except a batch's count array, as a real driver returns one.
 */
final class StubStatement implements java.sql.PreparedStatement {
    private final Connection connection;
    private final StubResultSet resultSet = new StubResultSet(this);
    private int batched;
    private boolean closed;

    StubStatement(Connection connection) {
        this.connection = connection;
    }

    @Override public int executeUpdate() { return 1; }
    @Override public int executeUpdate(String p1) { return 1; }
    @Override public long executeLargeUpdate() { return 1; }
    @Override public boolean execute() { return false; }
    @Override public boolean execute(String p1) { return false; }
    @Override public int getUpdateCount() { return 1; }
    @Override public long getLargeUpdateCount() { return 1; }
    @Override public ResultSet executeQuery() { return resultSet.reset(); }
    @Override public ResultSet executeQuery(String p1) { return resultSet.reset(); }
    @Override public void addBatch() { batched++; }
    @Override public void clearBatch() { batched = 0; }
    @Override public int[] executeBatch() {
        int[] counts = new int[batched];
        java.util.Arrays.fill(counts, 1);
        batched = 0;
        return counts;
    }
    @Override public Connection getConnection() { return connection; }
    @Override public boolean isClosed() { return closed; }
    @Override public void close() { closed = true; }

    // ---- the rest does nothing ----
    @Override public void addBatch(java.lang.String p1) {}
    @Override public void cancel() {}
    @Override public void clearParameters() {}
    @Override public void clearWarnings() {}
    @Override public void closeOnCompletion() {}
    @Override public boolean execute(java.lang.String p1, int[] p2) { return false; }
    @Override public boolean execute(java.lang.String p1, java.lang.String[] p2) { return false; }
    @Override public boolean execute(java.lang.String p1, int p2) { return false; }
    @Override public int executeUpdate(java.lang.String p1, int[] p2) { return 0; }
    @Override public int executeUpdate(java.lang.String p1, java.lang.String[] p2) { return 0; }
    @Override public int executeUpdate(java.lang.String p1, int p2) { return 0; }
    @Override public int getFetchDirection() { return 0; }
    @Override public int getFetchSize() { return 0; }
    @Override public java.sql.ResultSet getGeneratedKeys() { return null; }
    @Override public int getMaxFieldSize() { return 0; }
    @Override public int getMaxRows() { return 0; }
    @Override public java.sql.ResultSetMetaData getMetaData() { return null; }
    @Override public boolean getMoreResults() { return false; }
    @Override public boolean getMoreResults(int p1) { return false; }
    @Override public java.sql.ParameterMetaData getParameterMetaData() { return null; }
    @Override public int getQueryTimeout() { return 0; }
    @Override public java.sql.ResultSet getResultSet() { return null; }
    @Override public int getResultSetConcurrency() { return 0; }
    @Override public int getResultSetHoldability() { return 0; }
    @Override public int getResultSetType() { return 0; }
    @Override public java.sql.SQLWarning getWarnings() { return null; }
    @Override public boolean isCloseOnCompletion() { return false; }
    @Override public boolean isPoolable() { return false; }
    @Override public boolean isWrapperFor(java.lang.Class<?> p1) { return false; }
    @Override public void setArray(int p1, java.sql.Array p2) {}
    @Override public void setAsciiStream(int p1, java.io.InputStream p2, int p3) {}
    @Override public void setAsciiStream(int p1, java.io.InputStream p2, long p3) {}
    @Override public void setAsciiStream(int p1, java.io.InputStream p2) {}
    @Override public void setBigDecimal(int p1, java.math.BigDecimal p2) {}
    @Override public void setBinaryStream(int p1, java.io.InputStream p2, int p3) {}
    @Override public void setBinaryStream(int p1, java.io.InputStream p2, long p3) {}
    @Override public void setBinaryStream(int p1, java.io.InputStream p2) {}
    @Override public void setBlob(int p1, java.io.InputStream p2, long p3) {}
    @Override public void setBlob(int p1, java.io.InputStream p2) {}
    @Override public void setBlob(int p1, java.sql.Blob p2) {}
    @Override public void setBoolean(int p1, boolean p2) {}
    @Override public void setByte(int p1, byte p2) {}
    @Override public void setBytes(int p1, byte[] p2) {}
    @Override public void setCharacterStream(int p1, java.io.Reader p2, int p3) {}
    @Override public void setCharacterStream(int p1, java.io.Reader p2, long p3) {}
    @Override public void setCharacterStream(int p1, java.io.Reader p2) {}
    @Override public void setClob(int p1, java.io.Reader p2, long p3) {}
    @Override public void setClob(int p1, java.io.Reader p2) {}
    @Override public void setClob(int p1, java.sql.Clob p2) {}
    @Override public void setCursorName(java.lang.String p1) {}
    @Override public void setDate(int p1, java.sql.Date p2, java.util.Calendar p3) {}
    @Override public void setDate(int p1, java.sql.Date p2) {}
    @Override public void setDouble(int p1, double p2) {}
    @Override public void setEscapeProcessing(boolean p1) {}
    @Override public void setFetchDirection(int p1) {}
    @Override public void setFetchSize(int p1) {}
    @Override public void setFloat(int p1, float p2) {}
    @Override public void setInt(int p1, int p2) {}
    @Override public void setLong(int p1, long p2) {}
    @Override public void setMaxFieldSize(int p1) {}
    @Override public void setMaxRows(int p1) {}
    @Override public void setNCharacterStream(int p1, java.io.Reader p2, long p3) {}
    @Override public void setNCharacterStream(int p1, java.io.Reader p2) {}
    @Override public void setNClob(int p1, java.io.Reader p2, long p3) {}
    @Override public void setNClob(int p1, java.io.Reader p2) {}
    @Override public void setNClob(int p1, java.sql.NClob p2) {}
    @Override public void setNString(int p1, java.lang.String p2) {}
    @Override public void setNull(int p1, int p2, java.lang.String p3) {}
    @Override public void setNull(int p1, int p2) {}
    @Override public void setObject(int p1, java.lang.Object p2, int p3, int p4) {}
    @Override public void setObject(int p1, java.lang.Object p2, int p3) {}
    @Override public void setObject(int p1, java.lang.Object p2) {}
    @Override public void setPoolable(boolean p1) {}
    @Override public void setQueryTimeout(int p1) {}
    @Override public void setRef(int p1, java.sql.Ref p2) {}
    @Override public void setRowId(int p1, java.sql.RowId p2) {}
    @Override public void setSQLXML(int p1, java.sql.SQLXML p2) {}
    @Override public void setShort(int p1, short p2) {}
    @Override public void setString(int p1, java.lang.String p2) {}
    @Override public void setTime(int p1, java.sql.Time p2, java.util.Calendar p3) {}
    @Override public void setTime(int p1, java.sql.Time p2) {}
    @Override public void setTimestamp(int p1, java.sql.Timestamp p2, java.util.Calendar p3) {}
    @Override public void setTimestamp(int p1, java.sql.Timestamp p2) {}
    @Override public void setURL(int p1, java.net.URL p2) {}
    @Override @Deprecated public void setUnicodeStream(int p1, java.io.InputStream p2, int p3) {}
    @Override public <T> T unwrap(java.lang.Class<T> p1) { return null; }
}
