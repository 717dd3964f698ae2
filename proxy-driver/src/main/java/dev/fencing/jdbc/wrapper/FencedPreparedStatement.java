package dev.fencing.jdbc.wrapper;

import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.sql.Analysis;

import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link PreparedStatement} of the fencing driver. The caller's parameters are kept and applied, at execute
 * time, to the form of the statement the guard runs: the guard statement ahead of the caller's untouched text in
 * one round trip, or the untouched text after a locking read. Each form is prepared once.
 */
class FencedPreparedStatement extends FencedStatementBase implements PassThroughPreparedStatement {
    /** Prepares one form of the statement with the caller's result-set and generated-keys options. */
    interface Preparer {
        PreparedStatement prepare(String sql) throws SQLException;
    }

    /** A statement option the caller set, applied to every form prepared now or later. */
    private interface Option {
        void apply(Statement statement) throws SQLException;
    }

    private enum Form { UNTOUCHED, PREFIXED }

    private final String sql;
    private final Analysis analysis;
    private final StatementRouter.Route route;
    private final Preparer preparer;
    private final boolean prefixable;
    private final ParameterBindings bindings = new ParameterBindings();
    private final PreparedStatement[] forms = new PreparedStatement[Form.values().length];
    /** The caller's options, replayed on every form; empty (no array yet) until the first. */
    private final List<Option> options = new ArrayList<>();
    private Statement current;
    private boolean closed;
    private final FencedExecution.Batch batch = new FencedExecution.Batch();

    FencedPreparedStatement(FencedConnectionImpl connection, String sql, Analysis analysis, boolean keysRequested,
                            Preparer preparer) throws SQLException {
        this(connection, sql, analysis, keysRequested, preparer, true);
    }

    /**
     * @param formsAllowed whether the statement may take another form than its untouched text (a callable
     *                     statement has only that one); given by the subclass, never asked of an overridable method
     *                     before the subclass is built
     */
    FencedPreparedStatement(FencedConnectionImpl connection, String sql, Analysis analysis, boolean keysRequested,
                            Preparer preparer, boolean formsAllowed) throws SQLException {
        super(connection);
        this.sql = sql;
        this.analysis = analysis;
        // MariaDB's EXECUTE name is decided each time it runs (analysisNow), never by what the name meant here
        this.route = analysis.executedName() != null ? StatementRouter.Route.GUARD
                : connection.router().route(sql, analysis);
        this.preparer = preparer;
        this.prefixable = connection.execution().prefixable(analysis, keysRequested) && formsAllowed;
        // A SET fencing.* is never sent; a plain statement stands in to answer warnings, options and close.
        current = route == StatementRouter.Route.SETTING ? connection.raw().createStatement() : form(primaryForm());
    }

    private Form primaryForm() {
        return route == StatementRouter.Route.GUARD && prefixable ? Form.PREFIXED : Form.UNTOUCHED;
    }

    private PreparedStatement form(Form form) throws SQLException {
        PreparedStatement statement = forms[form.ordinal()];
        if (statement == null) {
            statement = preparer.prepare(text(form));
            for (Option option : options) {
                option.apply(statement);
            }
            forms[form.ordinal()] = statement;
        }
        return statement;
    }

    private String text(Form form) throws SQLException {
        return form == Form.PREFIXED ? connection.execution().preparedWithGuard(sql) : sql;
    }

    @Override
    Statement current() {
        return current;
    }

    /**
     * One execution: the route decided at prepare, checked again right before sending (what a name means may change
     * after prepare), run by the connection's {@link FencedExecution} with this statement's {@link Send}.
     */
    private Object run(Exec exec) throws SQLException {
        Analysis analysisNow = analysisNow();
        StatementRouter.Route prepared = analysis.executedName() == null ? route
                : connection.router().route(sql, analysisNow);
        StatementRouter.Route now = connection.router().routeNow(sql, analysisNow, prepared);
        return execute(now, sql, analysisNow, exec, new Forms(exec));
    }

    /**
     * The statement's analysis right before it is sent: MariaDB's {@code EXECUTE name} is what the connection saw
     * prepared under the name last, which may have changed since this statement was prepared.
     */
    private Analysis analysisNow() throws SQLException {
        return analysis.executedName() == null ? analysis : connection.router().analyze(sql);
    }

    /** This statement's way of sending itself: the untouched form, or the prefixed one with the guard bound ahead. */
    private final class Forms implements FencedExecution.Send {
        private final Exec exec;

        Forms(Exec exec) {
            this.exec = exec;
        }

        @Override
        public Object untouched() throws SQLException {
            PreparedStatement untouched = form(Form.UNTOUCHED);
            bindings.applyTo(untouched, index -> index);
            current = untouched;
            return exec.run(untouched);
        }

        @Override
        public Object withGuardAhead(FencedExecution.GuardAhead guard) throws SQLException {
            PreparedStatement prefixed = form(Form.PREFIXED);
            int shift = guard.bind(prefixed);
            bindings.applyTo(prefixed, index -> index + shift);
            current = prefixed;
            prefixed.execute();
            return exec.afterPrefixGuard(prefixed, guard.guard().statements());
        }

        @Override
        public boolean canCarryGuard() {
            return prefixable;
        }

        /** Stream parameters can be read once: such a statement is sent once, after the guard has decided. */
        @Override
        public boolean repeatable() {
            return !bindings.hasStreams();
        }

        @Override
        public int queryTimeout() throws SQLException {
            return getQueryTimeout();
        }
    }

    @Override
    public boolean execute() throws SQLException {
        return (Boolean) run(Exec.EXECUTE);
    }

    @Override
    public int executeUpdate() throws SQLException {
        return (Integer) run(Exec.UPDATE);
    }

    @Override
    public long executeLargeUpdate() throws SQLException {
        return (Long) run(Exec.LARGE_UPDATE);
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        return wrap((ResultSet) run(Exec.QUERY));
    }

    @Override
    public void addBatch() throws SQLException {
        Analysis analysisNow = analysisNow();
        StatementRouter.Route inBatch = bounded(() -> connection.router().routeInBatch(sql, analysisNow));
        connection.router().beforeSending(analysisNow);
        PreparedStatement untouched = form(Form.UNTOUCHED);
        bindings.applyTo(untouched, index -> index);
        untouched.addBatch();
        batch.add(sql, analysisNow, inBatch);
    }

    @Override
    public void clearBatch() throws SQLException {
        if (forms[Form.UNTOUCHED.ordinal()] != null) {
            forms[Form.UNTOUCHED.ordinal()].clearBatch();
        }
        batch.clear();
    }

    /** Runs the batch, guarded when it needs it; afterwards it is empty whatever happened (see FencedStatement). */
    @Override
    Object runBatch(boolean large) throws SQLException {
        resultFromDatabase();
        PreparedStatement untouched = form(Form.UNTOUCHED);
        current = untouched;
        try {
            int timeout = untouched.getQueryTimeout();
            return connection.withQueryTimeout(timeout, () -> connection.execution().batch(batch, timeout,
                    () -> large ? untouched.executeLargeBatch() : untouched.executeBatch()));
        } finally {
            batch.clear();
            untouched.clearBatch();
        }
    }

    @Override
    public void clearParameters() throws SQLException {
        bindings.clear();
        for (PreparedStatement statement : forms) {
            if (statement != null) {
                statement.clearParameters();
            }
        }
    }

    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        return form(Form.UNTOUCHED).getMetaData();
    }

    @Override
    public ParameterMetaData getParameterMetaData() throws SQLException {
        return form(Form.UNTOUCHED).getParameterMetaData();
    }

    /** Where every {@code setXxx(int, ...)} of the generated {@link PassThroughPreparedStatement} lands. */
    @Override
    public void bind(int index, boolean streamed, ParameterBindings.Binding binding) throws SQLException {
        if (index < 1 && current instanceof PreparedStatement) {
            binding.apply((PreparedStatement) current, index); // the underlying driver's own error, untouched
        }
        bindings.set(index, streamed, binding);
    }

    // ---- options apply to every form ----------------------------------------------------------------------

    private void option(Option option) throws SQLException {
        options.add(option);
        if (route == StatementRouter.Route.SETTING) {
            option.apply(current);
        }
        for (PreparedStatement statement : forms) {
            if (statement != null) {
                option.apply(statement);
            }
        }
    }

    @Override
    public void setQueryTimeout(int seconds) throws SQLException {
        option(s -> s.setQueryTimeout(seconds));
    }

    @Override
    public void setFetchSize(int rows) throws SQLException {
        option(s -> s.setFetchSize(rows));
    }

    @Override
    public void setFetchDirection(int direction) throws SQLException {
        option(s -> s.setFetchDirection(direction));
    }

    @Override
    public void setMaxRows(int max) throws SQLException {
        option(s -> s.setMaxRows(max));
    }

    @Override
    public void setLargeMaxRows(long max) throws SQLException {
        option(s -> s.setLargeMaxRows(max));
    }

    @Override
    public void setMaxFieldSize(int max) throws SQLException {
        option(s -> s.setMaxFieldSize(max));
    }

    @Override
    public void setEscapeProcessing(boolean enable) throws SQLException {
        option(s -> s.setEscapeProcessing(enable));
    }

    @Override
    public void setPoolable(boolean poolable) throws SQLException {
        option(s -> s.setPoolable(poolable));
    }

    @Override
    public void setCursorName(String name) throws SQLException {
        option(s -> s.setCursorName(name));
    }

    @Override
    public void closeOnCompletion() throws SQLException {
        option(Statement::closeOnCompletion);
    }

    @Override
    public void close() throws SQLException {
        closed = true;
        SQLException failure = null;
        if (route == StatementRouter.Route.SETTING) {
            current.close();
        }
        for (PreparedStatement statement : forms) {
            if (statement != null) {
                try {
                    statement.close();
                } catch (SQLException e) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    // ---- query-string methods are not for prepared statements --------------------------------------------

    /**
     * A query-string method, which JDBC says a prepared statement refuses: the underlying driver's own refusal
     * comes back untouched (pgjdbc's 42809, H2's 90130, MariaDB's text), never one copied from another driver. The
     * text goes through the fence first, like a {@link java.sql.Statement}'s, so a driver that ran it anyway could
     * not write unguarded.
     */
    @Override
    Object runText(String sql, Exec exec, Keys keys) throws SQLException {
        if (!(current instanceof PreparedStatement)) {
            throw dev.fencing.jdbc.audit.Refusals.preparedSettingWithText();
        }
        Statement raw = current;
        Analysis text = connection.router().analyze(sql);
        int timeout = raw.getQueryTimeout();
        return connection.withQueryTimeout(timeout, () -> {
            if (connection.router().route(sql, text) != StatementRouter.Route.GUARD) {
                return exec.run(raw, sql, keys);
            }
            return connection.execution().afterLock(sql, text, timeout, () -> exec.run(raw, sql, keys));
        });
    }

    /** Refused by the fence: a driver that queued the text would run it with the batch, unanalysed. */
    @Override
    public void addBatch(String sql) throws SQLException {
        connection.router().refuseTextInPreparedBatch(sql);
        current.addBatch(sql);
    }
}
