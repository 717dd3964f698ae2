package dev.fencing.jdbc.wrapper;

import dev.fencing.jdbc.guard.Admission;
import dev.fencing.jdbc.guard.EpochGuard;
import dev.fencing.jdbc.guard.SessionProbe;
import dev.fencing.jdbc.audit.FenceMetrics;
import dev.fencing.jdbc.audit.RefusalPolicy;
import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.jdbc.config.Settings;
import dev.fencing.jdbc.config.TokenResolver;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.sql.Analysis;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.GuardedSql;
import dev.fencing.sql.StatementKind;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The "run it and decide" step of one connection: every statement kind hands it the route {@link StatementRouter}
 * chose and a {@link Send}, its own way of sending the statement, and gets back the caller's result or a refusal.
 * It chooses the form of a mutation (the guard ahead of the untouched text in one round trip, or the untouched text
 * after the {@link EpochGuard} has locked the epoch row), resolves the token in force ({@link TokenResolver}),
 * refuses a missing, invalid or stale one through the {@link RefusalPolicy}, and runs batches and row changes.
 */
final class FencedExecution {
    /** A write the guard runs once the epoch row is locked: a batch, a row change, a call that carries no guard. */
    interface Action<T> {
        T run() throws SQLException;
    }

    /** How a statement class sends its statement: the strategy of one execution. */
    interface Send {
        /** Sends the caller's statement untouched; returns the caller's result. */
        Object untouched() throws SQLException;

        /**
         * Sends {@code guard} ahead of the caller's untouched text in one round trip and returns the caller's
         * result; the guard's own failure comes back as the database raised it. Called only when
         * {@link #canCarryGuard()}.
         */
        Object withGuardAhead(GuardAhead guard) throws SQLException;

        /** Whether this statement can carry the guard ahead of its text (see {@link #prefixable}). */
        boolean canCarryGuard();

        /** Whether the statement can be sent a second time after its guard failed (no stream parameters). */
        default boolean repeatable() {
            return true;
        }

        /** The caller's query timeout of this statement in seconds (0: none), which bounds the guard's statements too. */
        int queryTimeout() throws SQLException;
    }

    /**
     * The guard of one execution as a statement class puts it ahead of its text: written as literals (a plain
     * {@code Statement}) or bound to the guard's markers, the caller's parameters shifted behind them; {@code nonce}
     * is this send's own, which the guard's verdicts echo.
     */
    record GuardAhead(GuardedSql guard, String resource, long token, long nonce) {
        /** The text to send for {@code sql}: the guard with its values written in, then the caller's text. */
        String withLiterals(String sql) throws SQLException {
            return joined(guard.withLiterals(resource, token, nonce), sql);
        }

        /** Binds the guard's markers of {@code statement}; returns how far the caller's parameters move. */
        int bind(PreparedStatement statement) throws SQLException {
            List<GuardedSql.Marker> markers = guard.markers();
            for (int i = 0; i < markers.size(); i++) {
                switch (markers.get(i)) {
                    case RESOURCE -> statement.setString(i + 1, resource);
                    case TOKEN -> statement.setLong(i + 1, token);
                    case NONCE -> statement.setLong(i + 1, nonce);
                }
            }
            return markers.size();
        }
    }

    /** The mutations queued in one statement's batch: whether any needs the guard, and what a refusal names. */
    static final class Batch {
        private boolean needsGuard;
        private boolean writesWithoutToken;
        private boolean notOnlyWrites;
        private int size;
        private boolean mayEndTransaction;
        /**
         * The batch's mutation texts, distinct, for the audit report; made at the first guarded one (most statements
         * never batch, and every prepared statement has a batch).
         */
        private Set<String> texts;
        /** What each guarded statement of the batch writes: the resources the batch needs tokens for. */
        private List<Analysis> guarded;

        void add(String sql, Analysis analysis, StatementRouter.Route route) {
            if (route == StatementRouter.Route.GUARD) {
                needsGuard = true;
                if (texts == null) {
                    texts = new LinkedHashSet<>();
                    guarded = new java.util.ArrayList<>();
                }
                texts.add(sql);
                guarded.add(analysis);
            } else if (analysis.kind() == StatementKind.MUTATION) {
                writesWithoutToken = true;
            } else {
                notOnlyWrites = true;
            }
            size++;
            mayEndTransaction |= analysis.mayEndTransaction();
        }

        /**
         * Whether the batch's statements are all writes that need no token (exempt or temporary tables): only then
         * does it run read-write without the guard, so nothing the driver took for a read runs read-write.
         */
        boolean writesOnlyWithoutToken() {
            return writesWithoutToken && !notOnlyWrites;
        }

        void clear() {
            needsGuard = false;
            writesWithoutToken = false;
            notOnlyWrites = false;
            size = 0;
            mayEndTransaction = false;
            if (texts != null) {
                texts.clear();
                guarded.clear();
            }
        }
    }

    private final FencedConnectionImpl connection;
    private final StatementRouter router;
    private final EpochGuard guard;
    private final TokenResolver tokens;
    private final RefusalPolicy refusals;
    private final GuardedSql prefixGuard;
    private final Admission admission;
    /** Whether a text with the guard ahead runs as one transaction (PostgreSQL, not pgjdbc's simple query mode). */
    private final boolean textIsOneTransaction;
    /** {@code fencing.guard=session}. */
    private final boolean sessionGuard;

    FencedExecution(FencedConnectionImpl connection, StatementRouter router, EpochGuard guard, TokenResolver tokens,
                    RefusalPolicy refusals, boolean sessionGuard) {
        this.connection = connection;
        this.router = router;
        this.guard = guard;
        this.tokens = tokens;
        this.refusals = refusals;
        this.admission = guard.admission();
        GuardedSql prefix = guard.sql().prefixGuard();
        String lead = admission.readWriteLead();
        // The guard's own text opens its transaction read-write: nothing else of the caller's runs read-write.
        this.prefixGuard = prefix == null || lead == null ? prefix : prefix.after(lead);
        this.textIsOneTransaction = prefixGuard != null && !SessionProbe.sendsStatementsOneByOne(connection.raw());
        this.sessionGuard = sessionGuard;
    }

    /**
     * Runs one statement the way its route says: a read (or a write that reaches nothing shared) untouched,
     * transaction control untouched, a {@code SET fencing.*} here without the database, a mutation fenced.
     */
    Object run(StatementRouter.Route route, String sql, Analysis analysis, Exec exec, Send send) throws SQLException {
        Object result;
        guard.statementTakesTableLocks(analysis.takesTableLocks());
        try {
            result = runRoute(route, sql, analysis, exec, send);
        } catch (SQLException | RuntimeException failure) {
            admission.afterFailure();
            throw failure;
        } finally {
            guard.statementTakesTableLocks(false);
        }
        admission.afterStatement();
        return result;
    }

    private Object runRoute(StatementRouter.Route route, String sql, Analysis analysis, Exec exec, Send send)
            throws SQLException {
        switch (route) {
            case PASS:
                beforeRead();
                if (!StatementRouter.runsQuery(analysis)) {
                    boolean fresh = admission.beforeSessionSetting();
                    Object set = send.untouched();
                    admission.afterSessionSetting(fresh);
                    return set;
                }
                admission.beforeStatement(tokens);
                try {
                    // A write that needs no token (exempt, temporary tables) in a read-write transaction of its own;
                    // one PostgreSQL runs only outside a transaction (VACUUM, ALTER SYSTEM) as it is.
                    return analysis.kind() == StatementKind.MUTATION && !analysis.runsOutsideTransaction()
                            ? guard.readWrite(untouched(send::untouched)) : send.untouched();
                } catch (SQLException failure) {
                    throw admission.explain(failure, tokens);
                }
            case TRANSACTION_CONTROL:
                admission.beforeTransactionControl(analysis.transactionControl(), analysis.statementCount(), tokens);
                Object controlled = send.untouched();
                admission.afterTransactionControl(analysis.transactionControl(), tokens);
                return controlled;
            case SETTING:
                applySetting(analysis);
                return exec.local();
            default:
                // Asked before the statement: a catalog question after it would be a query between the caller's
                // statement and what the caller reads of it next (its warnings, which a query of a table clears).
                boolean restoreAfter = restoresModeAfterCall(analysis);
                Object written;
                try {
                    written = admission.readWriteSessionFor(analysis.mayEndTransaction(),
                            () -> guarded(sql, analysis, send.canCarryGuard(), send));
                } catch (SQLException | RuntimeException failure) {
                    afterCall(restoreAfter, failure);
                    throw failure;
                }
                // the SET of afterCall is the driver's: the caller's warnings stay the last the connector reports
                int warnings = admission.warningCount();
                afterCall(restoreAfter, null);
                admission.restoreWarningCount(warnings);
                return written;
        }
    }

    /** {@code action} as a call the guard runs untouched, after its lock or in a read-write transaction. */
    private static <T> EpochGuard.Call<T> untouched(Action<T> action) {
        return new EpochGuard.Call<>() {
            @Override
            public T withGuard(String resource, long token, long nonce) {
                throw new IllegalStateException("an action cannot carry a guard statement");
            }

            @Override
            public T untouched() throws SQLException {
                return action.run();
            }
        };
    }

    /** Whether {@link #afterCall} sets the read-only default again after {@code analysis}'s text. */
    private boolean restoresModeAfterCall(Analysis analysis) throws SQLException {
        return admission.enforced() && router.dialect() == Dialect.MARIADB
                && (analysis.isOpaque() || router.callsWritingFunction(analysis));
    }

    /**
     * After a guarded text that called functions (MariaDB/MySQL: a stored function may lift the session's read-only
     * default unseen): the default is set again; a failure to do so is added to {@code failure}, or thrown.
     */
    private void afterCall(boolean restore, Exception failure) throws SQLException {
        if (!restore) {
            return;
        }
        try {
            admission.afterFunctionCall();
        } catch (SQLException restoreFailure) {
            if (failure == null) {
                throw restoreFailure;
            }
            failure.addSuppressed(restoreFailure);
        }
    }

    /** A mutation's way through the guard: the guard ahead of its text where it can carry it, else after the lock. */
    private Object guarded(String sql, Analysis analysis, boolean prefixable, Send send) throws SQLException {
        return fence(sql, List.of(analysis), prefixable, send.repeatable(), send.queryTimeout(), new EpochGuard.Call<>() {
            @Override
            public Object withGuard(String resource, long token, long nonce) throws SQLException {
                return send.withGuardAhead(new GuardAhead(prefixGuard, resource, token, nonce));
            }

            @Override
            public Object untouched() throws SQLException {
                return send.untouched();
            }
        });
    }

    /** A plain {@code Statement}'s way of sending {@code sql}: as it is, or with the guard's literals ahead. */
    Send text(Statement statement, String sql, Analysis analysis, Exec exec, Keys keys) {
        boolean prefixable = prefixable(analysis, keys.requested());
        return new Send() {
            @Override
            public Object untouched() throws SQLException {
                return exec.run(statement, sql, keys);
            }

            @Override
            public Object withGuardAhead(GuardAhead guard) throws SQLException {
                statement.execute(guard.withLiterals(sql));
                return exec.afterPrefixGuard(statement, guard.guard().statements());
            }

            @Override
            public boolean canCarryGuard() {
                return prefixable;
            }

            @Override
            public int queryTimeout() throws SQLException {
                return statement.getQueryTimeout();
            }
        };
    }

    /**
     * Whether a mutation can carry the guard ahead of its own text: the database runs both in one round trip and
     * one transaction (PostgreSQL, not in pgjdbc's simple query mode), the text cannot end that transaction itself
     * (a procedure or block that commits), it is no call escape (drivers resolve those only at the start of a
     * text), the parser could read it (an opaque text is sent after the locking read, so that whatever the server
     * makes of it comes back as the server's own), and no generated keys were asked for.
     */
    boolean prefixable(Analysis analysis, boolean keysRequested) {
        return textIsOneTransaction && !analysis.mayEndTransaction() && !analysis.isCallEscape() && !analysis.isOpaque()
                && !keysRequested;
    }

    /** The text a prepared statement prepares for its guarded form: the guard's markers, then the caller's text. */
    String preparedWithGuard(String sql) throws SQLException {
        return joined(prefixGuard.sql(), sql);
    }

    /**
     * The text sent for the caller's {@code text} with {@code guard} ahead of it, proved to be the guard, one
     * {@code ;} and the caller's text byte for byte (SPEC C8) before it is sent: a failure is the driver's own bug,
     * refused rather than sent.
     */
    static String joined(String guard, String text) throws SQLException {
        String sent = GuardedSql.ahead(guard, text);
        if (!GuardedSql.isGuardThenText(sent, guard, text)) {
            throw Refusals.cannotGuard("the text to send is not the guard followed by the statement unchanged");
        }
        return sent;
    }

    /**
     * Runs a batch, fenced when any of its statements needs the guard: untouched, after the guard has locked the
     * epoch row. The caller empties its batch afterwards, whatever happened. {@code queryTimeout}: the caller's, in
     * seconds, which bounds the guard's statements too.
     */
    <T> T batch(Batch batch, int queryTimeout, Action<T> run) throws SQLException {
        try {
            return runBatch(batch, queryTimeout, run);
        } catch (SQLException | RuntimeException failure) {
            admission.afterFailure();
            throw failure;
        }
    }

    private <T> T runBatch(Batch batch, int queryTimeout, Action<T> run) throws SQLException {
        if (!batch.needsGuard) {
            admission.beforeStatement(tokens);
            try {
                return batch.writesOnlyWithoutToken() ? guard.readWrite(untouched(run)) : run.run();
            } catch (SQLException failure) {
                throw admission.explain(failure, tokens);
            }
        }
        String texts = batch.texts == null ? "" : String.join(";\n", batch.texts);
        if (router.commitsBetween(batch.size, batch.mayEndTransaction)) {
            refusals.refuse(Refusals.batchMayEndTransaction(), texts);
        }
        List<Analysis> writes = batch.guarded;
        if (batch.notOnlyWrites || batch.writesWithoutToken) {
            // a setting or read between the writes may move what their names mean before they run (a search_path
            // set in the batch, found by review): the writes cannot be named, so every mapped resource is needed
            writes = new java.util.ArrayList<>(batch.guarded);
            writes.add(null);
        }
        return fence(texts, writes, false, true, queryTimeout, untouched(run));
    }

    /**
     * Runs a write that cannot carry the guard untouched, after the guard has locked: a text of a prepared statement's
     * query-string method ({@code analysis}), or a result set's row change ({@code null}: the driver cannot name the
     * table, so every mapped resource's token is needed where tables are mapped). The caller's {@code queryTimeout}
     * (seconds, 0: none) bounds the guard's statements too.
     */
    <T> T afterLock(String statement, Analysis analysis, int queryTimeout, Action<T> action) throws SQLException {
        return fence(statement, java.util.Collections.singletonList(analysis), false, true, queryTimeout,
                untouched(action));
    }

    /**
     * Runs a mutation fenced with the token in force: the guard protocol, or the refusal of a missing, invalid or
     * stale token, which in audit mode runs {@code call} untouched instead.
     */
    private <T> T fence(String sql, List<Analysis> writes, boolean prefixable, boolean repeatable, int queryTimeout,
                        EpochGuard.Call<T> call) throws SQLException {
        String primary = tokens.resource();
        try {
            admission.beforeStatement(tokens);
            admission.requireAdmittedTransaction(tokens);
            Set<String> resources = router.mapsTables() ? router.resourcesOf(writes, primary) : null;
            if (resources == null || resources.size() == 1) {
                String resource = resources == null ? primary : resources.iterator().next();
                long token = tokenFor(resource, primary);
                T result = guard.run(resource, token, queryTimeout, prefixable, repeatable, call);
                FenceMetrics.of(resource).guarded(token);
                return result;
            }
            java.util.SortedMap<String, Long> marks = new java.util.TreeMap<>();
            for (String resource : resources) {
                marks.put(resource, tokenFor(resource, primary));
            }
            T result = guard.runForAll(marks, queryTimeout, call);
            marks.forEach((resource, token) -> FenceMetrics.of(resource).guarded(token));
            return result;
        } catch (FencingRefusedException refusal) {
            // Raised before the call ran (token resolution, or the guard's lock or advance): nothing changed yet.
            refusals.refuse(refusal, sql);
            return call.untouched();
        }
    }

    /**
     * The token in force for {@code resource}: the connection's or scope's own for {@code primary}; for a resource the
     * statement's tables are mapped to (SPEC C11), a token held for it, refused when none is.
     */
    private long tokenFor(String resource, String primary) throws SQLException {
        if (resource.equals(primary)) {
            return tokens.token(resource);
        }
        long token = tokens.find(resource);
        if (token == 0) {
            throw Refusals.missingMappedToken(resource, primary);
        }
        return token;
    }

    /**
     * Before a statement that needs no token: under the session fence, a session with a token but no
     * registration registers when the server has no transaction open, so that the writes of a transaction that
     * starts with a read go untouched too. Nothing is refused here: a read needs no token (a lost connection is
     * thrown as it happened).
     */
    void beforeRead() throws SQLException {
        if (sessionGuard) {
            guard.registerForRead(tokens);
        }
    }

    /**
     * Applies {@code SET fencing.token = n}, {@code SET fencing.resource = 'r'} or {@code RESET fencing.*} sent as
     * SQL. {@code SET LOCAL} is taken only for {@code fencing.token} on PostgreSQL, where the server keeps it for
     * exactly its transaction; elsewhere no server can say when it ends, so it is refused ({@code ZF006}).
     */
    private void applySetting(Analysis analysis) throws SQLException {
        String name = analysis.settingName();
        if (analysis.settingResource() != null) {
            applyResourceSetting(analysis);
            return;
        }
        if (!analysis.isLocalSetting()) {
            applySetting(name, analysis.settingValue(), "SET " + name, true);
            return;
        }
        String source = "SET LOCAL " + name;
        String token = FencingProperty.TOKEN.getName();
        Dialect dialect = router.dialect();
        if (!name.equals(token) || dialect != Dialect.POSTGRESQL) {
            throw Settings.configuration(source + " is not supported"
                    + (name.equals(token) ? " on " + dialect : "; only SET LOCAL " + token
                    + " is, on PostgreSQL") + ": use SET " + name + " for the connection, or Fencing.scope(resource,"
                    + " token) for a block of code");
        }
        boolean admits = admission.beforeLocalToken();
        try {
            tokens.setLocalToken(analysis.settingValue(), source);
        } catch (FencingRefusedException refusal) {
            refusals.refuse(refusal, source);
        }
        admission.afterLocalToken(admits, tokens);
    }

    /**
     * {@code SET fencing.token.<resource> = n} or {@code RESET fencing.token.<resource>}: the connection's token for
     * one named resource (SPEC C11), for SQL clients whose writes reach tables of several resources.
     */
    private void applyResourceSetting(Analysis analysis) throws SQLException {
        String name = analysis.settingName() + "." + analysis.settingResource();
        String token = FencingProperty.TOKEN.getName();
        if (!analysis.settingName().equals(token)) {
            throw Settings.configuration("'" + name + "' is not a setting; only " + token + ".<resource> names a"
                    + " resource (SET " + token + ".billing = 7)");
        }
        if (analysis.isLocalSetting()) {
            throw Settings.configuration("SET LOCAL " + name + " is not supported: use SET " + name
                    + " for the connection, or Fencing.scope(resource, token).with(resource, token) for a block of"
                    + " code");
        }
        String source = (analysis.settingValue() == null ? "RESET " : "SET ") + name;
        try {
            tokens.setResourceToken(analysis.settingResource(), analysis.settingValue(), source);
        } catch (FencingRefusedException refusal) {
            refusals.refuse(refusal, source);
        }
    }

    /** A setting from SQL ({@code sql}: as on PostgreSQL, it ends a local token too) or from client info. */
    void applySetting(String name, String value, String source, boolean sql) throws SQLException {
        FencingProperty setting = FencingProperty.forName(name);
        if (setting == FencingProperty.TOKEN) {
            try {
                if (sql) {
                    tokens.setSessionToken(value, source);
                } else {
                    tokens.setConnectionToken(value, source);
                }
            } catch (FencingRefusedException refusal) {
                refusals.refuse(refusal, source);
            }
        } else if (setting == FencingProperty.RESOURCE) {
            tokens.setConnectionResource(value, source);
        } else {
            throw Settings.configuration("'" + name + "' cannot be set on a connection; only "
                    + FencingProperty.TOKEN.getName() + " and " + FencingProperty.RESOURCE.getName() + " can");
        }
    }
}
