package dev.fencing.jdbc.testsupport;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * The result set of a {@link StubStatement} query: the rows of its {@link Answer}, or by default one row whose
 * every column reads 1 ({@code getString}: {@code t1}, since the fencing driver reads table names, which must be
 * identifiers). One per statement, reset at every query, so it allocates nothing.
 */
public final class StubResultSet implements java.sql.ResultSet {
    private final Statement statement;
    /** The rows; {@code null} for the default row of ones. */
    private Object[][] rows;
    private int row;
    private int count;
    private boolean wasNull;
    private boolean closed;

    StubResultSet(Statement statement) {
        this.statement = statement;
    }

    StubResultSet reset(Object[][] rows) {
        this.rows = rows;
        this.count = rows == null ? 1 : rows.length;
        this.row = -1;
        this.closed = false;
        return this;
    }

    private Object value(int column) throws SQLException {
        if (row < 0 || row >= count) {
            throw new SQLException("the stub result set is not on a row");
        }
        Object value = rows == null ? Integer.valueOf(1) : rows[row][column - 1];
        wasNull = value == null;
        return value;
    }

    @Override public boolean next() { return ++row < count; }
    @Override public int getInt(int p1) throws SQLException { Object v = value(p1); return v == null ? 0 : ((Number) v).intValue(); }
    @Override public long getLong(int p1) throws SQLException { Object v = value(p1); return v == null ? 0 : ((Number) v).longValue(); }
    @Override public String getString(int p1) throws SQLException { Object v = value(p1); return rows == null ? "t1" : v == null ? null : v.toString(); }
    @Override public boolean getBoolean(int p1) throws SQLException { Object v = value(p1); return v instanceof Boolean b ? b : v != null && ((Number) v).intValue() != 0; }
    @Override public Object getObject(int p1) throws SQLException { return value(p1); }
    @Override public boolean wasNull() { return wasNull; }
    @Override public Statement getStatement() { return statement; }
    @Override public boolean isClosed() { return closed; }
    @Override public void close() { closed = true; }

    // ---- the rest does nothing ----
    @Override public boolean absolute(int p1) { return false; }
    @Override public void afterLast() {}
    @Override public void beforeFirst() {}
    @Override public void cancelRowUpdates() {}
    @Override public void clearWarnings() {}
    @Override public void deleteRow() {}
    @Override public int findColumn(java.lang.String p1) { return 0; }
    @Override public boolean first() { return false; }
    @Override public java.sql.Array getArray(java.lang.String p1) { return null; }
    @Override public java.sql.Array getArray(int p1) { return null; }
    @Override public java.io.InputStream getAsciiStream(java.lang.String p1) { return null; }
    @Override public java.io.InputStream getAsciiStream(int p1) { return null; }
    @Override @Deprecated public java.math.BigDecimal getBigDecimal(java.lang.String p1, int p2) { return null; }
    @Override public java.math.BigDecimal getBigDecimal(java.lang.String p1) { return null; }
    @Override @Deprecated public java.math.BigDecimal getBigDecimal(int p1, int p2) { return null; }
    @Override public java.math.BigDecimal getBigDecimal(int p1) { return null; }
    @Override public java.io.InputStream getBinaryStream(java.lang.String p1) { return null; }
    @Override public java.io.InputStream getBinaryStream(int p1) { return null; }
    @Override public java.sql.Blob getBlob(java.lang.String p1) { return null; }
    @Override public java.sql.Blob getBlob(int p1) { return null; }
    @Override public boolean getBoolean(java.lang.String p1) { return false; }
    @Override public byte getByte(java.lang.String p1) { return 0; }
    @Override public byte getByte(int p1) { return 0; }
    @Override public byte[] getBytes(java.lang.String p1) { return null; }
    @Override public byte[] getBytes(int p1) { return null; }
    @Override public java.io.Reader getCharacterStream(java.lang.String p1) { return null; }
    @Override public java.io.Reader getCharacterStream(int p1) { return null; }
    @Override public java.sql.Clob getClob(java.lang.String p1) { return null; }
    @Override public java.sql.Clob getClob(int p1) { return null; }
    @Override public int getConcurrency() { return 0; }
    @Override public java.lang.String getCursorName() { return null; }
    @Override public java.sql.Date getDate(java.lang.String p1, java.util.Calendar p2) { return null; }
    @Override public java.sql.Date getDate(java.lang.String p1) { return null; }
    @Override public java.sql.Date getDate(int p1, java.util.Calendar p2) { return null; }
    @Override public java.sql.Date getDate(int p1) { return null; }
    @Override public double getDouble(java.lang.String p1) { return 0; }
    @Override public double getDouble(int p1) { return 0; }
    @Override public int getFetchDirection() { return 0; }
    @Override public int getFetchSize() { return 0; }
    @Override public float getFloat(java.lang.String p1) { return 0; }
    @Override public float getFloat(int p1) { return 0; }
    @Override public int getHoldability() { return 0; }
    @Override public int getInt(java.lang.String p1) { return 0; }
    @Override public long getLong(java.lang.String p1) { return 0; }
    @Override public java.sql.ResultSetMetaData getMetaData() { return null; }
    @Override public java.io.Reader getNCharacterStream(java.lang.String p1) { return null; }
    @Override public java.io.Reader getNCharacterStream(int p1) { return null; }
    @Override public java.sql.NClob getNClob(java.lang.String p1) { return null; }
    @Override public java.sql.NClob getNClob(int p1) { return null; }
    @Override public java.lang.String getNString(java.lang.String p1) { return null; }
    @Override public java.lang.String getNString(int p1) { return null; }
    @Override public <T> T getObject(java.lang.String p1, java.lang.Class<T> p2) { return null; }
    @Override public java.lang.Object getObject(java.lang.String p1, java.util.Map<java.lang.String, java.lang.Class<?>> p2) { return null; }
    @Override public java.lang.Object getObject(java.lang.String p1) { return null; }
    @Override public <T> T getObject(int p1, java.lang.Class<T> p2) { return null; }
    @Override public java.lang.Object getObject(int p1, java.util.Map<java.lang.String, java.lang.Class<?>> p2) { return null; }
    @Override public java.sql.Ref getRef(java.lang.String p1) { return null; }
    @Override public java.sql.Ref getRef(int p1) { return null; }
    @Override public int getRow() { return 0; }
    @Override public java.sql.RowId getRowId(java.lang.String p1) { return null; }
    @Override public java.sql.RowId getRowId(int p1) { return null; }
    @Override public java.sql.SQLXML getSQLXML(java.lang.String p1) { return null; }
    @Override public java.sql.SQLXML getSQLXML(int p1) { return null; }
    @Override public short getShort(java.lang.String p1) { return 0; }
    @Override public short getShort(int p1) { return 0; }
    @Override public java.lang.String getString(java.lang.String p1) { return null; }
    @Override public java.sql.Time getTime(java.lang.String p1, java.util.Calendar p2) { return null; }
    @Override public java.sql.Time getTime(java.lang.String p1) { return null; }
    @Override public java.sql.Time getTime(int p1, java.util.Calendar p2) { return null; }
    @Override public java.sql.Time getTime(int p1) { return null; }
    @Override public java.sql.Timestamp getTimestamp(java.lang.String p1, java.util.Calendar p2) { return null; }
    @Override public java.sql.Timestamp getTimestamp(java.lang.String p1) { return null; }
    @Override public java.sql.Timestamp getTimestamp(int p1, java.util.Calendar p2) { return null; }
    @Override public java.sql.Timestamp getTimestamp(int p1) { return null; }
    @Override public int getType() { return 0; }
    @Override public java.net.URL getURL(java.lang.String p1) { return null; }
    @Override public java.net.URL getURL(int p1) { return null; }
    @Override @Deprecated public java.io.InputStream getUnicodeStream(java.lang.String p1) { return null; }
    @Override @Deprecated public java.io.InputStream getUnicodeStream(int p1) { return null; }
    @Override public java.sql.SQLWarning getWarnings() { return null; }
    @Override public void insertRow() {}
    @Override public boolean isAfterLast() { return false; }
    @Override public boolean isBeforeFirst() { return false; }
    @Override public boolean isFirst() { return false; }
    @Override public boolean isLast() { return false; }
    @Override public boolean isWrapperFor(java.lang.Class<?> p1) { return false; }
    @Override public boolean last() { return false; }
    @Override public void moveToCurrentRow() {}
    @Override public void moveToInsertRow() {}
    @Override public boolean previous() { return false; }
    @Override public void refreshRow() {}
    @Override public boolean relative(int p1) { return false; }
    @Override public boolean rowDeleted() { return false; }
    @Override public boolean rowInserted() { return false; }
    @Override public boolean rowUpdated() { return false; }
    @Override public void setFetchDirection(int p1) {}
    @Override public void setFetchSize(int p1) {}
    @Override public <T> T unwrap(java.lang.Class<T> p1) { return null; }
    @Override public void updateArray(java.lang.String p1, java.sql.Array p2) {}
    @Override public void updateArray(int p1, java.sql.Array p2) {}
    @Override public void updateAsciiStream(java.lang.String p1, java.io.InputStream p2, int p3) {}
    @Override public void updateAsciiStream(java.lang.String p1, java.io.InputStream p2, long p3) {}
    @Override public void updateAsciiStream(java.lang.String p1, java.io.InputStream p2) {}
    @Override public void updateAsciiStream(int p1, java.io.InputStream p2, int p3) {}
    @Override public void updateAsciiStream(int p1, java.io.InputStream p2, long p3) {}
    @Override public void updateAsciiStream(int p1, java.io.InputStream p2) {}
    @Override public void updateBigDecimal(java.lang.String p1, java.math.BigDecimal p2) {}
    @Override public void updateBigDecimal(int p1, java.math.BigDecimal p2) {}
    @Override public void updateBinaryStream(java.lang.String p1, java.io.InputStream p2, int p3) {}
    @Override public void updateBinaryStream(java.lang.String p1, java.io.InputStream p2, long p3) {}
    @Override public void updateBinaryStream(java.lang.String p1, java.io.InputStream p2) {}
    @Override public void updateBinaryStream(int p1, java.io.InputStream p2, int p3) {}
    @Override public void updateBinaryStream(int p1, java.io.InputStream p2, long p3) {}
    @Override public void updateBinaryStream(int p1, java.io.InputStream p2) {}
    @Override public void updateBlob(java.lang.String p1, java.io.InputStream p2, long p3) {}
    @Override public void updateBlob(java.lang.String p1, java.io.InputStream p2) {}
    @Override public void updateBlob(java.lang.String p1, java.sql.Blob p2) {}
    @Override public void updateBlob(int p1, java.io.InputStream p2, long p3) {}
    @Override public void updateBlob(int p1, java.io.InputStream p2) {}
    @Override public void updateBlob(int p1, java.sql.Blob p2) {}
    @Override public void updateBoolean(java.lang.String p1, boolean p2) {}
    @Override public void updateBoolean(int p1, boolean p2) {}
    @Override public void updateByte(java.lang.String p1, byte p2) {}
    @Override public void updateByte(int p1, byte p2) {}
    @Override public void updateBytes(java.lang.String p1, byte[] p2) {}
    @Override public void updateBytes(int p1, byte[] p2) {}
    @Override public void updateCharacterStream(java.lang.String p1, java.io.Reader p2, int p3) {}
    @Override public void updateCharacterStream(java.lang.String p1, java.io.Reader p2, long p3) {}
    @Override public void updateCharacterStream(java.lang.String p1, java.io.Reader p2) {}
    @Override public void updateCharacterStream(int p1, java.io.Reader p2, int p3) {}
    @Override public void updateCharacterStream(int p1, java.io.Reader p2, long p3) {}
    @Override public void updateCharacterStream(int p1, java.io.Reader p2) {}
    @Override public void updateClob(java.lang.String p1, java.io.Reader p2, long p3) {}
    @Override public void updateClob(java.lang.String p1, java.io.Reader p2) {}
    @Override public void updateClob(java.lang.String p1, java.sql.Clob p2) {}
    @Override public void updateClob(int p1, java.io.Reader p2, long p3) {}
    @Override public void updateClob(int p1, java.io.Reader p2) {}
    @Override public void updateClob(int p1, java.sql.Clob p2) {}
    @Override public void updateDate(java.lang.String p1, java.sql.Date p2) {}
    @Override public void updateDate(int p1, java.sql.Date p2) {}
    @Override public void updateDouble(java.lang.String p1, double p2) {}
    @Override public void updateDouble(int p1, double p2) {}
    @Override public void updateFloat(java.lang.String p1, float p2) {}
    @Override public void updateFloat(int p1, float p2) {}
    @Override public void updateInt(java.lang.String p1, int p2) {}
    @Override public void updateInt(int p1, int p2) {}
    @Override public void updateLong(java.lang.String p1, long p2) {}
    @Override public void updateLong(int p1, long p2) {}
    @Override public void updateNCharacterStream(java.lang.String p1, java.io.Reader p2, long p3) {}
    @Override public void updateNCharacterStream(java.lang.String p1, java.io.Reader p2) {}
    @Override public void updateNCharacterStream(int p1, java.io.Reader p2, long p3) {}
    @Override public void updateNCharacterStream(int p1, java.io.Reader p2) {}
    @Override public void updateNClob(java.lang.String p1, java.io.Reader p2, long p3) {}
    @Override public void updateNClob(java.lang.String p1, java.io.Reader p2) {}
    @Override public void updateNClob(java.lang.String p1, java.sql.NClob p2) {}
    @Override public void updateNClob(int p1, java.io.Reader p2, long p3) {}
    @Override public void updateNClob(int p1, java.io.Reader p2) {}
    @Override public void updateNClob(int p1, java.sql.NClob p2) {}
    @Override public void updateNString(java.lang.String p1, java.lang.String p2) {}
    @Override public void updateNString(int p1, java.lang.String p2) {}
    @Override public void updateNull(java.lang.String p1) {}
    @Override public void updateNull(int p1) {}
    @Override public void updateObject(java.lang.String p1, java.lang.Object p2, int p3) {}
    @Override public void updateObject(java.lang.String p1, java.lang.Object p2) {}
    @Override public void updateObject(int p1, java.lang.Object p2, int p3) {}
    @Override public void updateObject(int p1, java.lang.Object p2) {}
    @Override public void updateRef(java.lang.String p1, java.sql.Ref p2) {}
    @Override public void updateRef(int p1, java.sql.Ref p2) {}
    @Override public void updateRow() {}
    @Override public void updateRowId(java.lang.String p1, java.sql.RowId p2) {}
    @Override public void updateRowId(int p1, java.sql.RowId p2) {}
    @Override public void updateSQLXML(java.lang.String p1, java.sql.SQLXML p2) {}
    @Override public void updateSQLXML(int p1, java.sql.SQLXML p2) {}
    @Override public void updateShort(java.lang.String p1, short p2) {}
    @Override public void updateShort(int p1, short p2) {}
    @Override public void updateString(java.lang.String p1, java.lang.String p2) {}
    @Override public void updateString(int p1, java.lang.String p2) {}
    @Override public void updateTime(java.lang.String p1, java.sql.Time p2) {}
    @Override public void updateTime(int p1, java.sql.Time p2) {}
    @Override public void updateTimestamp(java.lang.String p1, java.sql.Timestamp p2) {}
    @Override public void updateTimestamp(int p1, java.sql.Timestamp p2) {}
}
