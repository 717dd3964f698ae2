package dev.fencing.jdbc.testsupport;

import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A connection to no database. Every statement it makes asks the connection's {@link Script} what to answer to
 * the SQL it runs ({@link Answer#DEFAULT} unless told otherwise); a recording connection also keeps every text
 * run, in order ({@link #sent()}), and the parameters of its prepared statements. A connection that does not record
 * allocates nothing per execute, so the benchmarks measure the fencing driver, not the stub.
 */
public final class StubConnection implements Connection {
    /** Decides what a statement answers to the SQL text it runs. */
    public interface Script {
        Answer answer(String sql);
    }

    private final DatabaseMetaData metaData;
    private final List<String> sent;
    private Script script = sql -> Answer.DEFAULT;
    private Object vendor;
    private boolean autoCommit = true;
    private boolean closed;
    private int commits;
    private int rollbacks;

    private StubConnection(String productName, boolean recording) {
        this.metaData = metaData(productName);
        this.sent = recording ? Collections.synchronizedList(new ArrayList<>()) : null;
    }

    /** A connection that describes itself as {@code productName} and records what it is sent. */
    public static StubConnection recording(String productName) {
        return new StubConnection(productName, true);
    }

    /** A connection that describes itself as {@code productName} and records nothing (for benchmarks). */
    public static StubConnection quiet(String productName) {
        return new StubConnection(productName, false);
    }

    /** From now on, statements answer as {@code script} says. */
    public StubConnection answering(Script script) {
        this.script = script;
        return this;
    }

    /**
     * From now on, {@code unwrap} and {@code isWrapperFor} also find {@code vendor} (an object standing for the
     * underlying driver's own connection class or one of its parts).
     */
    public StubConnection wrapping(Object vendor) {
        this.vendor = vendor;
        return this;
    }

    /** Every SQL text run on this connection's statements, in order (a batch: each of its texts). */
    public List<String> sent() {
        if (sent == null) {
            throw new IllegalStateException("this stub connection does not record");
        }
        synchronized (sent) {
            return List.copyOf(sent);
        }
    }

    public int commits() {
        return commits;
    }

    public int rollbacks() {
        return rollbacks;
    }

    boolean recordsParameters() {
        return sent != null;
    }

    /** Records {@code sql} as run and returns what the script answers to it. */
    Answer run(String sql) {
        if (sent != null) {
            sent.add(sql);
        }
        return script.answer(sql);
    }

    /** Database metadata is read only at connect, so a reflective proxy is cheap enough here. */
    private static DatabaseMetaData metaData(String productName) {
        return (DatabaseMetaData) Proxy.newProxyInstance(StubConnection.class.getClassLoader(),
                new Class<?>[] {DatabaseMetaData.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "getDatabaseProductName":
                            return productName;
                        case "getDatabaseProductVersion":
                            return "stub";
                        default:
                            Class<?> type = method.getReturnType();
                            if (type == boolean.class) {
                                return false;
                            }
                            return type == int.class ? 0 : type == long.class ? 0L : null;
                    }
                });
    }

    @Override public StubStatement createStatement() { return new StubStatement(this); }
    @Override public StubStatement createStatement(int p1, int p2) { return new StubStatement(this); }
    @Override public StubStatement createStatement(int p1, int p2, int p3) { return new StubStatement(this); }
    @Override public StubPreparedStatement prepareStatement(String p1) { return new StubPreparedStatement(this, p1); }
    @Override public StubPreparedStatement prepareStatement(String p1, int p2) { return new StubPreparedStatement(this, p1); }
    @Override public StubPreparedStatement prepareStatement(String p1, int p2, int p3) { return new StubPreparedStatement(this, p1); }
    @Override public StubPreparedStatement prepareStatement(String p1, int p2, int p3, int p4) { return new StubPreparedStatement(this, p1); }
    @Override public StubPreparedStatement prepareStatement(String p1, int[] p2) { return new StubPreparedStatement(this, p1); }
    @Override public StubPreparedStatement prepareStatement(String p1, String[] p2) { return new StubPreparedStatement(this, p1); }
    @Override public CallableStatement prepareCall(String p1) throws SQLException { throw noCalls(); }
    @Override public CallableStatement prepareCall(String p1, int p2, int p3) throws SQLException { throw noCalls(); }
    @Override public CallableStatement prepareCall(String p1, int p2, int p3, int p4) throws SQLException { throw noCalls(); }
    @Override public boolean getAutoCommit() { return autoCommit; }
    @Override public void setAutoCommit(boolean p1) { autoCommit = p1; }
    @Override public void commit() { commits++; }
    @Override public void rollback() { rollbacks++; }
    @Override public void rollback(java.sql.Savepoint p1) { rollbacks++; }
    @Override public DatabaseMetaData getMetaData() { return metaData; }
    @Override public String nativeSQL(String p1) { return p1; }
    @Override public boolean isValid(int p1) { return !closed; }
    @Override public boolean isClosed() { return closed; }
    @Override public void close() { closed = true; }
    @Override public int getTransactionIsolation() { return TRANSACTION_READ_COMMITTED; }
    @Override public boolean isWrapperFor(Class<?> type) { return type.isInstance(this) || type.isInstance(vendor); }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        if (type.isInstance(vendor)) {
            return type.cast(vendor);
        }
        throw new SQLException("a stub connection wraps no " + type.getName());
    }

    private static SQLException noCalls() {
        return new SQLFeatureNotSupportedException("the stub connection has no callable statements");
    }

    // ---- the rest does nothing ----
    @Override public void abort(java.util.concurrent.Executor p1) {}
    @Override public void clearWarnings() {}
    @Override public java.sql.Array createArrayOf(java.lang.String p1, java.lang.Object[] p2) { return null; }
    @Override public java.sql.Blob createBlob() { return null; }
    @Override public java.sql.Clob createClob() { return null; }
    @Override public java.sql.NClob createNClob() { return null; }
    @Override public java.sql.SQLXML createSQLXML() { return null; }
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
    @Override public void releaseSavepoint(java.sql.Savepoint p1) {}
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
}
