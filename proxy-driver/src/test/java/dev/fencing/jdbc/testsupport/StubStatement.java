package dev.fencing.jdbc.testsupport;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A statement of a {@link StubConnection}: each execution asks the connection's script for its {@link Answer}
 * (recorded by a recording connection) and answers with it. Its one result set is reused, so an execution
 * allocates nothing but a batch's count array, as a real driver returns one.
 */
public class StubStatement implements Statement {
    final StubConnection connection;
    private final StubResultSet resultSet = new StubResultSet(this);
    private final List<String> batch = new ArrayList<>();
    private Answer last;
    private SQLWarning warning;
    private boolean closed;

    StubStatement(StubConnection connection) {
        this.connection = connection;
    }

    /** Runs {@code sql}: the script's answer, after throwing its failure if it has one. */
    final Answer run(String sql) throws SQLException {
        Answer answer = connection.run(sql);
        last = answer;
        warning = answer.warning;
        answer.throwIfFailure();
        return answer;
    }

    final ResultSet query(String sql) throws SQLException {
        return resultSet.reset(run(sql).rows);
    }

    final boolean executed(Answer answer) {
        if (answer.query) {
            resultSet.reset(answer.rows);
        }
        return answer.query;
    }

    @Override public int executeUpdate(String sql) throws SQLException { return run(sql).count; }
    @Override public int executeUpdate(String sql, int p2) throws SQLException { return run(sql).count; }
    @Override public int executeUpdate(String sql, int[] p2) throws SQLException { return run(sql).count; }
    @Override public int executeUpdate(String sql, String[] p2) throws SQLException { return run(sql).count; }
    @Override public long executeLargeUpdate(String sql) throws SQLException { return run(sql).count; }
    @Override public boolean execute(String sql) throws SQLException { return executed(run(sql)); }
    @Override public boolean execute(String sql, int p2) throws SQLException { return executed(run(sql)); }
    @Override public boolean execute(String sql, int[] p2) throws SQLException { return executed(run(sql)); }
    @Override public boolean execute(String sql, String[] p2) throws SQLException { return executed(run(sql)); }
    @Override public ResultSet executeQuery(String sql) throws SQLException { return query(sql); }
    @Override public void addBatch(String sql) { batch.add(sql); }
    @Override public void clearBatch() { batch.clear(); }

    @Override
    public int[] executeBatch() throws SQLException {
        try {
            int[] counts = new int[batch.size()];
            for (int i = 0; i < counts.length; i++) {
                counts[i] = run(batch.get(i)).count;
            }
            return counts;
        } finally {
            batch.clear();
        }
    }

    @Override public int getUpdateCount() { return last == null || last.query ? -1 : last.count; }
    @Override public long getLargeUpdateCount() { return getUpdateCount(); }
    @Override public ResultSet getResultSet() { return last != null && last.query ? resultSet : null; }
    @Override public SQLWarning getWarnings() { return warning; }
    @Override public void clearWarnings() { warning = null; }
    @Override public Connection getConnection() { return connection; }
    @Override public boolean isClosed() { return closed; }
    @Override public void close() { closed = true; }
    @Override public boolean isWrapperFor(Class<?> type) { return type.isInstance(this); }
    @Override public <T> T unwrap(Class<T> type) { return type.cast(this); }

    // ---- the rest does nothing ----
    @Override public void cancel() {}
    @Override public void closeOnCompletion() {}
    @Override public int getFetchDirection() { return 0; }
    @Override public int getFetchSize() { return 0; }
    @Override public java.sql.ResultSet getGeneratedKeys() { return null; }
    @Override public int getMaxFieldSize() { return 0; }
    @Override public int getMaxRows() { return 0; }
    @Override public boolean getMoreResults() { return false; }
    @Override public boolean getMoreResults(int p1) { return false; }
    @Override public int getQueryTimeout() { return 0; }
    @Override public int getResultSetConcurrency() { return 0; }
    @Override public int getResultSetHoldability() { return 0; }
    @Override public int getResultSetType() { return 0; }
    @Override public boolean isCloseOnCompletion() { return false; }
    @Override public boolean isPoolable() { return false; }
    @Override public void setCursorName(java.lang.String p1) {}
    @Override public void setEscapeProcessing(boolean p1) {}
    @Override public void setFetchDirection(int p1) {}
    @Override public void setFetchSize(int p1) {}
    @Override public void setMaxFieldSize(int p1) {}
    @Override public void setMaxRows(int p1) {}
    @Override public void setPoolable(boolean p1) {}
    @Override public void setQueryTimeout(int p1) {}
}
