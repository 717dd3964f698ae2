package dev.fencing.jdbc.wrapper;

import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.sql.Analysis;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A plain {@link Statement} of the fencing driver: each text is decided by the connection's {@link StatementRouter}
 * and run by its {@link FencedExecution}, sent as it is or, for a mutation on PostgreSQL, with the guard statement
 * (its values written as literals) ahead of the caller's untouched text.
 */
final class FencedStatement extends FencedStatementBase {
    private final Statement delegate;
    private final FencedExecution.Batch batch = new FencedExecution.Batch();

    FencedStatement(FencedConnectionImpl connection, Statement delegate) {
        super(connection);
        this.delegate = delegate;
    }

    @Override
    Statement current() {
        return delegate;
    }

    /** One execution: decided by the connection's router, run by its {@link FencedExecution}. */
    @Override
    Object runText(String sql, Exec exec, Keys keys) throws SQLException {
        return bounded(() -> {
            StatementRouter router = connection.router();
            Analysis analysis = router.analyze(sql);
            StatementRouter.Route route = router.route(sql, analysis, true);
            return execute(route, sql, analysis, exec,
                    connection.execution().text(delegate, sql, analysis, exec, keys));
        });
    }

    @Override
    public void addBatch(String sql) throws SQLException {
        Analysis analysis = connection.router().analyze(sql);
        StatementRouter.Route route = bounded(() -> connection.router().routeInBatch(sql, analysis));
        connection.router().beforeSending(analysis);
        delegate.addBatch(sql);
        batch.add(sql, analysis, route);
    }

    @Override
    public void clearBatch() throws SQLException {
        delegate.clearBatch();
        batch.clear();
    }

    /**
     * Runs the batch, guarded when any of its statements needs it. Whatever happens, the batch is empty afterwards
     * (as after the underlying driver's executeBatch): a refused batch must not stay queued and run unguarded by the
     * next executeBatch.
     */
    @Override
    Object runBatch(boolean large) throws SQLException {
        resultFromDatabase();
        try {
            int timeout = delegate.getQueryTimeout();
            return connection.withQueryTimeout(timeout, () -> connection.execution().batch(batch, timeout,
                    () -> large ? delegate.executeLargeBatch() : delegate.executeBatch()));
        } finally {
            batch.clear();
            delegate.clearBatch();
        }
    }
}
