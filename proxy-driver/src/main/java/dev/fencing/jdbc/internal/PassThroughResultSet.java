package dev.fencing.jdbc.internal;

import java.io.InputStream;
import java.io.Reader;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Date;
import java.sql.NClob;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Time;
import java.sql.Timestamp;

/**
 * The methods of {@link FencedResultSet} that only hand a call to the underlying result set, kept apart so that
 * the fenced class shows only what has behaviour (HikariCP keeps its proxies to behaviour the same way).
 */
abstract class PassThroughResultSet implements ResultSet {
    final ResultSet delegate;

    PassThroughResultSet(ResultSet delegate) {
        this.delegate = delegate;
    }

    @Override
    public boolean absolute(int p1) throws SQLException {
        return delegate.absolute(p1);
    }

    @Override
    public void afterLast() throws SQLException {
        delegate.afterLast();
    }

    @Override
    public void beforeFirst() throws SQLException {
        delegate.beforeFirst();
    }

    @Override
    public void cancelRowUpdates() throws SQLException {
        delegate.cancelRowUpdates();
    }

    @Override
    public void clearWarnings() throws SQLException {
        delegate.clearWarnings();
    }

    @Override
    public void close() throws SQLException {
        delegate.close();
    }

    @Override
    public int findColumn(String p1) throws SQLException {
        return delegate.findColumn(p1);
    }

    @Override
    public boolean first() throws SQLException {
        return delegate.first();
    }

    @Override
    public InputStream getAsciiStream(String p1) throws SQLException {
        return delegate.getAsciiStream(p1);
    }

    @Override
    public InputStream getAsciiStream(int p1) throws SQLException {
        return delegate.getAsciiStream(p1);
    }

    @Override
    @Deprecated
    public java.math.BigDecimal getBigDecimal(String p1, int p2) throws SQLException {
        return delegate.getBigDecimal(p1, p2);
    }

    @Override
    public java.math.BigDecimal getBigDecimal(String p1) throws SQLException {
        return delegate.getBigDecimal(p1);
    }

    @Override
    @Deprecated
    public java.math.BigDecimal getBigDecimal(int p1, int p2) throws SQLException {
        return delegate.getBigDecimal(p1, p2);
    }

    @Override
    public java.math.BigDecimal getBigDecimal(int p1) throws SQLException {
        return delegate.getBigDecimal(p1);
    }

    @Override
    public InputStream getBinaryStream(String p1) throws SQLException {
        return delegate.getBinaryStream(p1);
    }

    @Override
    public InputStream getBinaryStream(int p1) throws SQLException {
        return delegate.getBinaryStream(p1);
    }

    @Override
    public Blob getBlob(String p1) throws SQLException {
        return delegate.getBlob(p1);
    }

    @Override
    public Blob getBlob(int p1) throws SQLException {
        return delegate.getBlob(p1);
    }

    @Override
    public boolean getBoolean(String p1) throws SQLException {
        return delegate.getBoolean(p1);
    }

    @Override
    public boolean getBoolean(int p1) throws SQLException {
        return delegate.getBoolean(p1);
    }

    @Override
    public byte getByte(String p1) throws SQLException {
        return delegate.getByte(p1);
    }

    @Override
    public byte getByte(int p1) throws SQLException {
        return delegate.getByte(p1);
    }

    @Override
    public byte[] getBytes(String p1) throws SQLException {
        return delegate.getBytes(p1);
    }

    @Override
    public byte[] getBytes(int p1) throws SQLException {
        return delegate.getBytes(p1);
    }

    @Override
    public Reader getCharacterStream(String p1) throws SQLException {
        return delegate.getCharacterStream(p1);
    }

    @Override
    public Reader getCharacterStream(int p1) throws SQLException {
        return delegate.getCharacterStream(p1);
    }

    @Override
    public Clob getClob(String p1) throws SQLException {
        return delegate.getClob(p1);
    }

    @Override
    public Clob getClob(int p1) throws SQLException {
        return delegate.getClob(p1);
    }

    @Override
    public int getConcurrency() throws SQLException {
        return delegate.getConcurrency();
    }

    @Override
    public String getCursorName() throws SQLException {
        return delegate.getCursorName();
    }

    @Override
    public Date getDate(String p1, java.util.Calendar p2) throws SQLException {
        return delegate.getDate(p1, p2);
    }

    @Override
    public Date getDate(String p1) throws SQLException {
        return delegate.getDate(p1);
    }

    @Override
    public Date getDate(int p1, java.util.Calendar p2) throws SQLException {
        return delegate.getDate(p1, p2);
    }

    @Override
    public Date getDate(int p1) throws SQLException {
        return delegate.getDate(p1);
    }

    @Override
    public double getDouble(String p1) throws SQLException {
        return delegate.getDouble(p1);
    }

    @Override
    public double getDouble(int p1) throws SQLException {
        return delegate.getDouble(p1);
    }

    @Override
    public int getFetchDirection() throws SQLException {
        return delegate.getFetchDirection();
    }

    @Override
    public int getFetchSize() throws SQLException {
        return delegate.getFetchSize();
    }

    @Override
    public float getFloat(String p1) throws SQLException {
        return delegate.getFloat(p1);
    }

    @Override
    public float getFloat(int p1) throws SQLException {
        return delegate.getFloat(p1);
    }

    @Override
    public int getHoldability() throws SQLException {
        return delegate.getHoldability();
    }

    @Override
    public int getInt(String p1) throws SQLException {
        return delegate.getInt(p1);
    }

    @Override
    public int getInt(int p1) throws SQLException {
        return delegate.getInt(p1);
    }

    @Override
    public long getLong(String p1) throws SQLException {
        return delegate.getLong(p1);
    }

    @Override
    public long getLong(int p1) throws SQLException {
        return delegate.getLong(p1);
    }

    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        return delegate.getMetaData();
    }

    @Override
    public Reader getNCharacterStream(String p1) throws SQLException {
        return delegate.getNCharacterStream(p1);
    }

    @Override
    public Reader getNCharacterStream(int p1) throws SQLException {
        return delegate.getNCharacterStream(p1);
    }

    @Override
    public NClob getNClob(String p1) throws SQLException {
        return delegate.getNClob(p1);
    }

    @Override
    public NClob getNClob(int p1) throws SQLException {
        return delegate.getNClob(p1);
    }

    @Override
    public String getNString(String p1) throws SQLException {
        return delegate.getNString(p1);
    }

    @Override
    public String getNString(int p1) throws SQLException {
        return delegate.getNString(p1);
    }

    @Override
    public Ref getRef(String p1) throws SQLException {
        return delegate.getRef(p1);
    }

    @Override
    public Ref getRef(int p1) throws SQLException {
        return delegate.getRef(p1);
    }

    @Override
    public int getRow() throws SQLException {
        return delegate.getRow();
    }

    @Override
    public RowId getRowId(String p1) throws SQLException {
        return delegate.getRowId(p1);
    }

    @Override
    public RowId getRowId(int p1) throws SQLException {
        return delegate.getRowId(p1);
    }

    @Override
    public SQLXML getSQLXML(String p1) throws SQLException {
        return delegate.getSQLXML(p1);
    }

    @Override
    public SQLXML getSQLXML(int p1) throws SQLException {
        return delegate.getSQLXML(p1);
    }

    @Override
    public short getShort(String p1) throws SQLException {
        return delegate.getShort(p1);
    }

    @Override
    public short getShort(int p1) throws SQLException {
        return delegate.getShort(p1);
    }

    @Override
    public String getString(String p1) throws SQLException {
        return delegate.getString(p1);
    }

    @Override
    public String getString(int p1) throws SQLException {
        return delegate.getString(p1);
    }

    @Override
    public Time getTime(String p1, java.util.Calendar p2) throws SQLException {
        return delegate.getTime(p1, p2);
    }

    @Override
    public Time getTime(String p1) throws SQLException {
        return delegate.getTime(p1);
    }

    @Override
    public Time getTime(int p1, java.util.Calendar p2) throws SQLException {
        return delegate.getTime(p1, p2);
    }

    @Override
    public Time getTime(int p1) throws SQLException {
        return delegate.getTime(p1);
    }

    @Override
    public Timestamp getTimestamp(String p1, java.util.Calendar p2) throws SQLException {
        return delegate.getTimestamp(p1, p2);
    }

    @Override
    public Timestamp getTimestamp(String p1) throws SQLException {
        return delegate.getTimestamp(p1);
    }

    @Override
    public Timestamp getTimestamp(int p1, java.util.Calendar p2) throws SQLException {
        return delegate.getTimestamp(p1, p2);
    }

    @Override
    public Timestamp getTimestamp(int p1) throws SQLException {
        return delegate.getTimestamp(p1);
    }

    @Override
    public int getType() throws SQLException {
        return delegate.getType();
    }

    @Override
    public java.net.URL getURL(String p1) throws SQLException {
        return delegate.getURL(p1);
    }

    @Override
    public java.net.URL getURL(int p1) throws SQLException {
        return delegate.getURL(p1);
    }

    @Override
    @Deprecated
    public InputStream getUnicodeStream(String p1) throws SQLException {
        return delegate.getUnicodeStream(p1);
    }

    @Override
    @Deprecated
    public InputStream getUnicodeStream(int p1) throws SQLException {
        return delegate.getUnicodeStream(p1);
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return delegate.getWarnings();
    }

    @Override
    public boolean isAfterLast() throws SQLException {
        return delegate.isAfterLast();
    }

    @Override
    public boolean isBeforeFirst() throws SQLException {
        return delegate.isBeforeFirst();
    }

    @Override
    public boolean isClosed() throws SQLException {
        return delegate.isClosed();
    }

    @Override
    public boolean isFirst() throws SQLException {
        return delegate.isFirst();
    }

    @Override
    public boolean isLast() throws SQLException {
        return delegate.isLast();
    }

    @Override
    public boolean last() throws SQLException {
        return delegate.last();
    }

    @Override
    public void moveToCurrentRow() throws SQLException {
        delegate.moveToCurrentRow();
    }

    @Override
    public void moveToInsertRow() throws SQLException {
        delegate.moveToInsertRow();
    }

    @Override
    public boolean next() throws SQLException {
        return delegate.next();
    }

    @Override
    public boolean previous() throws SQLException {
        return delegate.previous();
    }

    @Override
    public void refreshRow() throws SQLException {
        delegate.refreshRow();
    }

    @Override
    public boolean relative(int p1) throws SQLException {
        return delegate.relative(p1);
    }

    @Override
    public boolean rowDeleted() throws SQLException {
        return delegate.rowDeleted();
    }

    @Override
    public boolean rowInserted() throws SQLException {
        return delegate.rowInserted();
    }

    @Override
    public boolean rowUpdated() throws SQLException {
        return delegate.rowUpdated();
    }

    @Override
    public void setFetchDirection(int p1) throws SQLException {
        delegate.setFetchDirection(p1);
    }

    @Override
    public void setFetchSize(int p1) throws SQLException {
        delegate.setFetchSize(p1);
    }

    @Override
    public void updateArray(String p1, Array p2) throws SQLException {
        delegate.updateArray(p1, p2);
    }

    @Override
    public void updateArray(int p1, Array p2) throws SQLException {
        delegate.updateArray(p1, p2);
    }

    @Override
    public void updateAsciiStream(String p1, InputStream p2, int p3) throws SQLException {
        delegate.updateAsciiStream(p1, p2, p3);
    }

    @Override
    public void updateAsciiStream(String p1, InputStream p2, long p3) throws SQLException {
        delegate.updateAsciiStream(p1, p2, p3);
    }

    @Override
    public void updateAsciiStream(String p1, InputStream p2) throws SQLException {
        delegate.updateAsciiStream(p1, p2);
    }

    @Override
    public void updateAsciiStream(int p1, InputStream p2, int p3) throws SQLException {
        delegate.updateAsciiStream(p1, p2, p3);
    }

    @Override
    public void updateAsciiStream(int p1, InputStream p2, long p3) throws SQLException {
        delegate.updateAsciiStream(p1, p2, p3);
    }

    @Override
    public void updateAsciiStream(int p1, InputStream p2) throws SQLException {
        delegate.updateAsciiStream(p1, p2);
    }

    @Override
    public void updateBigDecimal(String p1, java.math.BigDecimal p2) throws SQLException {
        delegate.updateBigDecimal(p1, p2);
    }

    @Override
    public void updateBigDecimal(int p1, java.math.BigDecimal p2) throws SQLException {
        delegate.updateBigDecimal(p1, p2);
    }

    @Override
    public void updateBinaryStream(String p1, InputStream p2, int p3) throws SQLException {
        delegate.updateBinaryStream(p1, p2, p3);
    }

    @Override
    public void updateBinaryStream(String p1, InputStream p2, long p3) throws SQLException {
        delegate.updateBinaryStream(p1, p2, p3);
    }

    @Override
    public void updateBinaryStream(String p1, InputStream p2) throws SQLException {
        delegate.updateBinaryStream(p1, p2);
    }

    @Override
    public void updateBinaryStream(int p1, InputStream p2, int p3) throws SQLException {
        delegate.updateBinaryStream(p1, p2, p3);
    }

    @Override
    public void updateBinaryStream(int p1, InputStream p2, long p3) throws SQLException {
        delegate.updateBinaryStream(p1, p2, p3);
    }

    @Override
    public void updateBinaryStream(int p1, InputStream p2) throws SQLException {
        delegate.updateBinaryStream(p1, p2);
    }

    @Override
    public void updateBlob(String p1, InputStream p2, long p3) throws SQLException {
        delegate.updateBlob(p1, p2, p3);
    }

    @Override
    public void updateBlob(String p1, InputStream p2) throws SQLException {
        delegate.updateBlob(p1, p2);
    }

    @Override
    public void updateBlob(String p1, Blob p2) throws SQLException {
        delegate.updateBlob(p1, p2);
    }

    @Override
    public void updateBlob(int p1, InputStream p2, long p3) throws SQLException {
        delegate.updateBlob(p1, p2, p3);
    }

    @Override
    public void updateBlob(int p1, InputStream p2) throws SQLException {
        delegate.updateBlob(p1, p2);
    }

    @Override
    public void updateBlob(int p1, Blob p2) throws SQLException {
        delegate.updateBlob(p1, p2);
    }

    @Override
    public void updateBoolean(String p1, boolean p2) throws SQLException {
        delegate.updateBoolean(p1, p2);
    }

    @Override
    public void updateBoolean(int p1, boolean p2) throws SQLException {
        delegate.updateBoolean(p1, p2);
    }

    @Override
    public void updateByte(String p1, byte p2) throws SQLException {
        delegate.updateByte(p1, p2);
    }

    @Override
    public void updateByte(int p1, byte p2) throws SQLException {
        delegate.updateByte(p1, p2);
    }

    @Override
    public void updateBytes(String p1, byte[] p2) throws SQLException {
        delegate.updateBytes(p1, p2);
    }

    @Override
    public void updateBytes(int p1, byte[] p2) throws SQLException {
        delegate.updateBytes(p1, p2);
    }

    @Override
    public void updateCharacterStream(String p1, Reader p2, int p3) throws SQLException {
        delegate.updateCharacterStream(p1, p2, p3);
    }

    @Override
    public void updateCharacterStream(String p1, Reader p2, long p3) throws SQLException {
        delegate.updateCharacterStream(p1, p2, p3);
    }

    @Override
    public void updateCharacterStream(String p1, Reader p2) throws SQLException {
        delegate.updateCharacterStream(p1, p2);
    }

    @Override
    public void updateCharacterStream(int p1, Reader p2, int p3) throws SQLException {
        delegate.updateCharacterStream(p1, p2, p3);
    }

    @Override
    public void updateCharacterStream(int p1, Reader p2, long p3) throws SQLException {
        delegate.updateCharacterStream(p1, p2, p3);
    }

    @Override
    public void updateCharacterStream(int p1, Reader p2) throws SQLException {
        delegate.updateCharacterStream(p1, p2);
    }

    @Override
    public void updateClob(String p1, Reader p2, long p3) throws SQLException {
        delegate.updateClob(p1, p2, p3);
    }

    @Override
    public void updateClob(String p1, Reader p2) throws SQLException {
        delegate.updateClob(p1, p2);
    }

    @Override
    public void updateClob(String p1, Clob p2) throws SQLException {
        delegate.updateClob(p1, p2);
    }

    @Override
    public void updateClob(int p1, Reader p2, long p3) throws SQLException {
        delegate.updateClob(p1, p2, p3);
    }

    @Override
    public void updateClob(int p1, Reader p2) throws SQLException {
        delegate.updateClob(p1, p2);
    }

    @Override
    public void updateClob(int p1, Clob p2) throws SQLException {
        delegate.updateClob(p1, p2);
    }

    @Override
    public void updateDate(String p1, Date p2) throws SQLException {
        delegate.updateDate(p1, p2);
    }

    @Override
    public void updateDate(int p1, Date p2) throws SQLException {
        delegate.updateDate(p1, p2);
    }

    @Override
    public void updateDouble(String p1, double p2) throws SQLException {
        delegate.updateDouble(p1, p2);
    }

    @Override
    public void updateDouble(int p1, double p2) throws SQLException {
        delegate.updateDouble(p1, p2);
    }

    @Override
    public void updateFloat(String p1, float p2) throws SQLException {
        delegate.updateFloat(p1, p2);
    }

    @Override
    public void updateFloat(int p1, float p2) throws SQLException {
        delegate.updateFloat(p1, p2);
    }

    @Override
    public void updateInt(String p1, int p2) throws SQLException {
        delegate.updateInt(p1, p2);
    }

    @Override
    public void updateInt(int p1, int p2) throws SQLException {
        delegate.updateInt(p1, p2);
    }

    @Override
    public void updateLong(String p1, long p2) throws SQLException {
        delegate.updateLong(p1, p2);
    }

    @Override
    public void updateLong(int p1, long p2) throws SQLException {
        delegate.updateLong(p1, p2);
    }

    @Override
    public void updateNCharacterStream(String p1, Reader p2, long p3) throws SQLException {
        delegate.updateNCharacterStream(p1, p2, p3);
    }

    @Override
    public void updateNCharacterStream(String p1, Reader p2) throws SQLException {
        delegate.updateNCharacterStream(p1, p2);
    }

    @Override
    public void updateNCharacterStream(int p1, Reader p2, long p3) throws SQLException {
        delegate.updateNCharacterStream(p1, p2, p3);
    }

    @Override
    public void updateNCharacterStream(int p1, Reader p2) throws SQLException {
        delegate.updateNCharacterStream(p1, p2);
    }

    @Override
    public void updateNClob(String p1, Reader p2, long p3) throws SQLException {
        delegate.updateNClob(p1, p2, p3);
    }

    @Override
    public void updateNClob(String p1, Reader p2) throws SQLException {
        delegate.updateNClob(p1, p2);
    }

    @Override
    public void updateNClob(String p1, NClob p2) throws SQLException {
        delegate.updateNClob(p1, p2);
    }

    @Override
    public void updateNClob(int p1, Reader p2, long p3) throws SQLException {
        delegate.updateNClob(p1, p2, p3);
    }

    @Override
    public void updateNClob(int p1, Reader p2) throws SQLException {
        delegate.updateNClob(p1, p2);
    }

    @Override
    public void updateNClob(int p1, NClob p2) throws SQLException {
        delegate.updateNClob(p1, p2);
    }

    @Override
    public void updateNString(String p1, String p2) throws SQLException {
        delegate.updateNString(p1, p2);
    }

    @Override
    public void updateNString(int p1, String p2) throws SQLException {
        delegate.updateNString(p1, p2);
    }

    @Override
    public void updateNull(String p1) throws SQLException {
        delegate.updateNull(p1);
    }

    @Override
    public void updateNull(int p1) throws SQLException {
        delegate.updateNull(p1);
    }

    @Override
    public void updateObject(String p1, Object p2, int p3) throws SQLException {
        delegate.updateObject(p1, p2, p3);
    }

    @Override
    public void updateObject(String p1, Object p2, SQLType p3, int p4) throws SQLException {
        delegate.updateObject(p1, p2, p3, p4);
    }

    @Override
    public void updateObject(String p1, Object p2, SQLType p3) throws SQLException {
        delegate.updateObject(p1, p2, p3);
    }

    @Override
    public void updateObject(String p1, Object p2) throws SQLException {
        delegate.updateObject(p1, p2);
    }

    @Override
    public void updateObject(int p1, Object p2, int p3) throws SQLException {
        delegate.updateObject(p1, p2, p3);
    }

    @Override
    public void updateObject(int p1, Object p2, SQLType p3, int p4) throws SQLException {
        delegate.updateObject(p1, p2, p3, p4);
    }

    @Override
    public void updateObject(int p1, Object p2, SQLType p3) throws SQLException {
        delegate.updateObject(p1, p2, p3);
    }

    @Override
    public void updateObject(int p1, Object p2) throws SQLException {
        delegate.updateObject(p1, p2);
    }

    @Override
    public void updateRef(String p1, Ref p2) throws SQLException {
        delegate.updateRef(p1, p2);
    }

    @Override
    public void updateRef(int p1, Ref p2) throws SQLException {
        delegate.updateRef(p1, p2);
    }

    @Override
    public void updateRowId(String p1, RowId p2) throws SQLException {
        delegate.updateRowId(p1, p2);
    }

    @Override
    public void updateRowId(int p1, RowId p2) throws SQLException {
        delegate.updateRowId(p1, p2);
    }

    @Override
    public void updateSQLXML(String p1, SQLXML p2) throws SQLException {
        delegate.updateSQLXML(p1, p2);
    }

    @Override
    public void updateSQLXML(int p1, SQLXML p2) throws SQLException {
        delegate.updateSQLXML(p1, p2);
    }

    @Override
    public void updateShort(String p1, short p2) throws SQLException {
        delegate.updateShort(p1, p2);
    }

    @Override
    public void updateShort(int p1, short p2) throws SQLException {
        delegate.updateShort(p1, p2);
    }

    @Override
    public void updateString(String p1, String p2) throws SQLException {
        delegate.updateString(p1, p2);
    }

    @Override
    public void updateString(int p1, String p2) throws SQLException {
        delegate.updateString(p1, p2);
    }

    @Override
    public void updateTime(String p1, Time p2) throws SQLException {
        delegate.updateTime(p1, p2);
    }

    @Override
    public void updateTime(int p1, Time p2) throws SQLException {
        delegate.updateTime(p1, p2);
    }

    @Override
    public void updateTimestamp(String p1, Timestamp p2) throws SQLException {
        delegate.updateTimestamp(p1, p2);
    }

    @Override
    public void updateTimestamp(int p1, Timestamp p2) throws SQLException {
        delegate.updateTimestamp(p1, p2);
    }

    @Override
    public boolean wasNull() throws SQLException {
        return delegate.wasNull();
    }
}
