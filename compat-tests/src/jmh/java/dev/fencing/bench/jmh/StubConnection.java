package dev.fencing.bench.jmh;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.Statement;

/**
 * A connection to no database, for measuring the fencing driver's own work per statement: every statement it
 * prepares is a {@link StubStatement} that allocates nothing per execute. The remaining methods do nothing.
 */
final class StubConnection implements Connection {
    private final DatabaseMetaData metaData;
    private boolean autoCommit = true;
    private boolean closed;

    StubConnection(DatabaseMetaData metaData) {
        this.metaData = metaData;
    }

    @Override public Statement createStatement() { return new StubStatement(this); }
    @Override public PreparedStatement prepareStatement(String p1) { return new StubStatement(this); }
    @Override public PreparedStatement prepareStatement(String p1, int p2) { return new StubStatement(this); }
    @Override public PreparedStatement prepareStatement(String p1, int p2, int p3) { return new StubStatement(this); }
    @Override public PreparedStatement prepareStatement(String p1, int p2, int p3, int p4) { return new StubStatement(this); }
    @Override public PreparedStatement prepareStatement(String p1, int[] p2) { return new StubStatement(this); }
    @Override public PreparedStatement prepareStatement(String p1, String[] p2) { return new StubStatement(this); }
    @Override public boolean getAutoCommit() { return autoCommit; }
    @Override public void setAutoCommit(boolean p1) { autoCommit = p1; }
    @Override public DatabaseMetaData getMetaData() { return metaData; }
    @Override public String nativeSQL(String p1) { return p1; }
    @Override public boolean isValid(int p1) { return !closed; }
    @Override public boolean isClosed() { return closed; }
    @Override public void close() { closed = true; }
    @Override public int getTransactionIsolation() { return TRANSACTION_READ_COMMITTED; }

    // ---- the rest does nothing ----
    @Override public void abort(java.util.concurrent.Executor p1) {}
    @Override public void clearWarnings() {}
    @Override public void commit() {}
    @Override public java.sql.Array createArrayOf(java.lang.String p1, java.lang.Object[] p2) { return null; }
    @Override public java.sql.Blob createBlob() { return null; }
    @Override public java.sql.Clob createClob() { return null; }
    @Override public java.sql.NClob createNClob() { return null; }
    @Override public java.sql.SQLXML createSQLXML() { return null; }
    @Override public java.sql.Statement createStatement(int p1, int p2, int p3) { return null; }
    @Override public java.sql.Statement createStatement(int p1, int p2) { return null; }
    @Override public java.sql.Struct createStruct(java.lang.String p1, java.lang.Object[] p2) { return null; }
    @Override public java.lang.String getCatalog() { return null; }
    @Override public java.util.Properties getClientInfo() { return null; }
    @Override public java.lang.String getClientInfo(java.lang.String p1) { return null; }
    @Override public int getHoldability() { return 0; }
    @Override public int getNetworkTimeout() { return 0; }
    @Override public java.lang.String getSchema() { return null; }
    @Override public java.util.Map<java.lang.String, java.lang.Class<?>> getTypeMap() { return null; }
    @Override public java.sql.SQLWarning getWarnings() { return null; }
    @Override public boolean isReadOnly() { return false; }
    @Override public boolean isWrapperFor(java.lang.Class<?> p1) { return false; }
    @Override public java.sql.CallableStatement prepareCall(java.lang.String p1, int p2, int p3, int p4) { return null; }
    @Override public java.sql.CallableStatement prepareCall(java.lang.String p1, int p2, int p3) { return null; }
    @Override public java.sql.CallableStatement prepareCall(java.lang.String p1) { return null; }
    @Override public void releaseSavepoint(java.sql.Savepoint p1) {}
    @Override public void rollback() {}
    @Override public void rollback(java.sql.Savepoint p1) {}
    @Override public void setCatalog(java.lang.String p1) {}
    @Override public void setClientInfo(java.lang.String p1, java.lang.String p2) {}
    @Override public void setClientInfo(java.util.Properties p1) {}
    @Override public void setHoldability(int p1) {}
    @Override public void setNetworkTimeout(java.util.concurrent.Executor p1, int p2) {}
    @Override public void setReadOnly(boolean p1) {}
    @Override public java.sql.Savepoint setSavepoint() { return null; }
    @Override public java.sql.Savepoint setSavepoint(java.lang.String p1) { return null; }
    @Override public void setSchema(java.lang.String p1) {}
    @Override public void setTransactionIsolation(int p1) {}
    @Override public void setTypeMap(java.util.Map<java.lang.String, java.lang.Class<?>> p1) {}
    @Override public <T> T unwrap(java.lang.Class<T> p1) { return null; }
}
