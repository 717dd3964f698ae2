package dev.fencing.jdbc.testsupport;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A prepared statement of a {@link StubConnection}: every execution runs its text (see {@link StubStatement}); a
 * recording connection's prepared statement also keeps the parameters set, by index, and the parameters of every
 * execution and batch entry ({@link #executions()}).
 */
public final class StubPreparedStatement extends StubStatement implements java.sql.PreparedStatement {
    private final String sql;
    /** The parameters set now, by 1-based index; {@code null} when the connection does not record. */
    private final Map<Integer, Object> parameters;
    private final List<Map<Integer, Object>> executions;
    private final List<Map<Integer, Object>> batched = new ArrayList<>();
    private int batchSize;

    StubPreparedStatement(StubConnection connection, String sql) {
        super(connection);
        this.sql = sql;
        boolean recording = connection.recordsParameters();
        this.parameters = recording ? new TreeMap<>() : null;
        this.executions = recording ? Collections.synchronizedList(new ArrayList<>()) : null;
    }

    /** The text this statement was prepared with. */
    public String sql() {
        return sql;
    }

    /** The parameters of every execution so far (a batch: one per entry), each by 1-based index. */
    public List<Map<Integer, Object>> executions() {
        if (executions == null) {
            throw new IllegalStateException("this stub connection does not record");
        }
        return List.copyOf(executions);
    }

    /**
     * Keeps a parameter (a {@code null} value as {@link #NULL}, since the maps hold no nulls). Callers test
     * {@code parameters} first, so a quiet statement does not even box a primitive.
     */
    private void bind(int index, Object value) {
        parameters.put(index, value == null ? NULL : value);
    }

    /** What a parameter set to SQL NULL ({@code setNull}, or a {@code null} object) is recorded as. */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "NULL";
        }
    };

    private void executing() {
        if (executions != null) {
            executions.add(Map.copyOf(parameters));
        }
    }

    @Override public int executeUpdate() throws SQLException { executing(); return run(sql).count; }
    @Override public long executeLargeUpdate() throws SQLException { executing(); return run(sql).count; }
    @Override public boolean execute() throws SQLException { executing(); return executed(run(sql)); }
    @Override public ResultSet executeQuery() throws SQLException { executing(); return query(sql); }

    @Override
    public void clearParameters() {
        if (parameters != null) {
            parameters.clear();
        }
    }

    @Override
    public void addBatch() {
        batchSize++;
        if (parameters != null) {
            batched.add(Map.copyOf(parameters));
        }
    }

    @Override
    public void clearBatch() {
        super.clearBatch();
        batchSize = 0;
        batched.clear();
    }

    @Override
    public int[] executeBatch() throws SQLException {
        try {
            int[] counts = new int[batchSize];
            for (int i = 0; i < counts.length; i++) {
                if (executions != null) {
                    executions.add(batched.get(i));
                }
                counts[i] = run(sql).count;
            }
            return counts;
        } finally {
            batchSize = 0;
            batched.clear();
        }
    }

    // ---- parameters: recorded by a recording connection only (setNull records NULL) ----
    @Override public void setArray(int p1, java.sql.Array p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setAsciiStream(int p1, java.io.InputStream p2, int p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setAsciiStream(int p1, java.io.InputStream p2, long p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setAsciiStream(int p1, java.io.InputStream p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setBigDecimal(int p1, java.math.BigDecimal p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setBinaryStream(int p1, java.io.InputStream p2, int p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setBinaryStream(int p1, java.io.InputStream p2, long p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setBinaryStream(int p1, java.io.InputStream p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setBlob(int p1, java.io.InputStream p2, long p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setBlob(int p1, java.io.InputStream p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setBlob(int p1, java.sql.Blob p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setBoolean(int p1, boolean p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setByte(int p1, byte p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setBytes(int p1, byte[] p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setCharacterStream(int p1, java.io.Reader p2, int p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setCharacterStream(int p1, java.io.Reader p2, long p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setCharacterStream(int p1, java.io.Reader p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setClob(int p1, java.io.Reader p2, long p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setClob(int p1, java.io.Reader p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setClob(int p1, java.sql.Clob p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setDate(int p1, java.sql.Date p2, java.util.Calendar p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setDate(int p1, java.sql.Date p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setDouble(int p1, double p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setFloat(int p1, float p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setInt(int p1, int p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setLong(int p1, long p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setNCharacterStream(int p1, java.io.Reader p2, long p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setNCharacterStream(int p1, java.io.Reader p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setNClob(int p1, java.io.Reader p2, long p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setNClob(int p1, java.io.Reader p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setNClob(int p1, java.sql.NClob p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setNString(int p1, java.lang.String p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setNull(int p1, int p2, java.lang.String p3) { if (parameters != null) { bind(p1, null); } }
    @Override public void setNull(int p1, int p2) { if (parameters != null) { bind(p1, null); } }
    @Override public void setObject(int p1, java.lang.Object p2, int p3, int p4) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setObject(int p1, java.lang.Object p2, int p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setObject(int p1, java.lang.Object p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setRef(int p1, java.sql.Ref p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setRowId(int p1, java.sql.RowId p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setSQLXML(int p1, java.sql.SQLXML p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setShort(int p1, short p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setString(int p1, java.lang.String p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setTime(int p1, java.sql.Time p2, java.util.Calendar p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setTime(int p1, java.sql.Time p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setTimestamp(int p1, java.sql.Timestamp p2, java.util.Calendar p3) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setTimestamp(int p1, java.sql.Timestamp p2) { if (parameters != null) { bind(p1, p2); } }
    @Override public void setURL(int p1, java.net.URL p2) { if (parameters != null) { bind(p1, p2); } }
    @Override @Deprecated public void setUnicodeStream(int p1, java.io.InputStream p2, int p3) { if (parameters != null) { bind(p1, p2); } }

    // ---- the rest does nothing ----
    @Override public java.sql.ResultSetMetaData getMetaData() { return null; }
    @Override public java.sql.ParameterMetaData getParameterMetaData() { return null; }
}
