package dev.fencing.jdbc.wrapper;

import dev.fencing.jdbc.guard.Admission;
import dev.fencing.jdbc.guard.Catalog;
import dev.fencing.jdbc.guard.EpochGuard;
import dev.fencing.jdbc.guard.EpochSchema;
import dev.fencing.jdbc.guard.H2Durability;
import dev.fencing.jdbc.guard.IssuerCheck;
import dev.fencing.jdbc.guard.ResourceMap;
import dev.fencing.jdbc.audit.FenceMetrics;
import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.jdbc.audit.RefusalPolicy;
import dev.fencing.jdbc.config.TokenResolver;
import dev.fencing.jdbc.config.Settings;
import dev.fencing.jdbc.FencingMode;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencedConnection;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.sql.Analysis;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.GuardedSql;
import dev.fencing.sql.SessionFenceSql;
import dev.fencing.sql.LeaseSql;
import dev.fencing.sql.ReadOnlySql;
import dev.fencing.sql.SqlAnalyzer;
import dev.fencing.sql.StatementKind;

import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Wrapper;
import java.sql.ClientInfoStatus;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The connection the fencing driver hands out: wraps the underlying connection, never hands it out, and sends
 * every statement through analysis and, for mutations, the {@link EpochGuard}.
 */
public final class FencedConnectionImpl extends PassThroughConnection implements FencedConnection {
    /** One analyzer (and so one cache of analysed SQL) per database kind and epoch table, shared by connections. */
    private static final Map<String, SqlAnalyzer> ANALYZERS = new ConcurrentHashMap<>();

    private final Connection raw;
    private final EpochGuard guard;
    private final TokenResolver tokens;
    private final RefusalPolicy refusals;
    private final boolean unwrapAllowed;
    private final StatementRouter router;
    private final FencedExecution execution;
    private FencedDatabaseMetaData metaData;

    FencedConnectionImpl(Connection raw, Settings settings, SqlAnalyzer analyzer, EpochSchema.Tables tables)
            throws SQLException {
        this.raw = raw;
        LeaseSql leaseSql = new LeaseSql(analyzer.epochSql().dialect(), tables.lease());
        IssuerCheck issuerCheck = settings.issuerCheck() && leaseSql.supported()
                ? new IssuerCheck(raw, leaseSql, tables.leasePresent()) : null;
        boolean sessionGuard = settings.sessionGuard();
        ResourceMap resources = tables.resourceTablePresent()
                ? ResourceMap.read(raw, analyzer.dialect(), tables.epoch()) : ResourceMap.none(raw, analyzer.dialect());
        boolean mariaDb = analyzer.dialect() == Dialect.MARIADB;
        this.guard = new EpochGuard(raw, analyzer.epochSql(), issuerCheck,
                sessionGuard && !mariaDb ? new SessionFenceSql(tables.epoch()) : null,
                sessionGuard && mariaDb ? EpochSchema.mariaDbSessionFenceSql(tables.epoch()) : null,
                readOnly(settings, analyzer.dialect()), settings.declaredResourcesOnly() ? resources : null);
        this.tokens = new TokenResolver(settings, raw);
        this.refusals = RefusalPolicy.of(settings.mode() == FencingMode.AUDIT, settings.auditFile(), analyzer.dialect(),
                tokens::resource);
        this.unwrapAllowed = settings.unwrapAllowed();
        Catalog catalog = Catalog.open(raw, analyzer.dialect(), settings.exemptTables(), resources);
        EpochTable sessionTable = SessionFenceSql.sessionTableOf(settings.epochTable());
        this.router = new StatementRouter(raw, settings, analyzer, refusals, catalog, tokens, guard,
                sessionTable == null ? null : sessionTable.simpleName());
        this.execution = new FencedExecution(this, router, guard, tokens, refusals, sessionGuard);
    }

    /**
     * Wraps a freshly opened underlying connection, resolving the fence's tables and checking (or creating) the
     * epoch table and its protection first.
     */
    public static FencedConnectionImpl open(Connection raw, Settings settings) throws SQLException {
        try {
            Dialect dialect = Dialect.of(raw.getMetaData().getDatabaseProductName(), settings.targetUrl());
            if (dialect == Dialect.H2) {
                H2Durability.require(raw);
            }
            if (dialect == Dialect.MARIADB) {
                StatementRouter.requireSafeClientCharset(raw);
            }
            // The tables are resolved once, here, to qualified names: every guard, lock and advance of this
            // connection names them so, whatever search_path or schema the session moves to later.
            ReadOnlySql readOnly = readOnly(settings, dialect);
            EpochSchema.Tables tables = settings.schemaMode() == Settings.SchemaMode.CREATE
                    ? Admission.readWrite(raw, readOnly, dialect, () -> EpochSchema.prepare(raw, dialect, settings))
                    : EpochSchema.prepare(raw, dialect, settings);
            Admission.start(raw, readOnly, dialect);
            String key = dialect + "|" + tables.epoch().render(dialect) + "|" + tables.lease().render(dialect) + "|"
                    + settings.cacheSize();
            Dialect chosen = dialect;
            SqlAnalyzer analyzer = ANALYZERS.computeIfAbsent(key, k -> newAnalyzer(chosen, tables, settings));
            return Wrappers.connection(raw, settings, analyzer, tables);
        } catch (SQLException | RuntimeException e) {
            try {
                raw.close();
            } catch (SQLException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
    }

    /** The read-only mode the server keeps for un-admitted work: enforce mode, on a database that has one. */
    private static ReadOnlySql readOnly(Settings settings, Dialect dialect) {
        return settings.mode() == FencingMode.ENFORCE ? ReadOnlySql.of(dialect) : null;
    }

    /** The session fence's table beside the epoch table is protected in every mode, where it can exist. */
    private static SqlAnalyzer newAnalyzer(Dialect dialect, EpochSchema.Tables tables, Settings settings) {
        EpochTable sessionTable = SessionFenceSql.sessionTableOf(tables.epoch());
        EpochTable resourceTable = dev.fencing.sql.ResourceTableSql.resourceTableOf(dialect, tables.epoch());
        return new SqlAnalyzer(dialect, tables.epoch(), sessionTable == null ? List.of(tables.lease(), resourceTable)
                : List.of(tables.lease(), resourceTable, sessionTable), settings.cacheSize());
    }

    /**
     * A value read from a result or an out parameter, fenced where it leads back to the raw connection: result sets
     * (a PostgreSQL refcursor) and arrays.
     */
    Object fenced(Object value) {
        if (value instanceof ResultSet rs) {
            return Wrappers.resultSet(this, null, rs);
        }
        if (value instanceof Array array) {
            return Wrappers.array(this, array);
        }
        return value;
    }

    /** {@link #fenced(Object)} for {@code getObject(column, type)}: a vendor type asked for is an unwrap. */
    <T> T fenced(T value, Class<T> type) throws SQLException {
        Object fenced = fenced(value);
        if (fenced == value || type.isInstance(fenced)) {
            return type.cast(fenced);
        }
        if (!unwrapAllowed) {
            refusals.refuse(Refusals.unwrapRefused(type), "getObject(" + type.getName() + ")");
        }
        return value;
    }

    /**
     * {@code unwrap} for every wrapper of this connection: the wrapper itself when it is of {@code type}, otherwise
     * the raw object it wraps, only when {@code fencing.unwrap=allow}.
     */
    <T> T unwrap(Object wrapper, Wrapper raw, Class<T> type) throws SQLException {
        if (type.isInstance(wrapper)) {
            return type.cast(wrapper);
        }
        if (!unwrapAllowed) {
            refusals.refuse(Refusals.unwrapRefused(type), "unwrap(" + type.getName() + ")");
        }
        return raw.unwrap(type);
    }

    /** The "decide" step: what a statement is and how it proceeds. */
    StatementRouter router() {
        return router;
    }

    /** The "run it and decide" step: every statement kind sends through it. */
    FencedExecution execution() {
        return execution;
    }

    /**
     * Runs one call of the caller's (a statement, a batch, a row change) with its query timeout (seconds, 0: none)
     * bounding every statement the fence sends for it, the admission's locking read at a transaction's start
     * included ({@link EpochGuard#withQueryTimeout}).
     */
    <T> T withQueryTimeout(int queryTimeout, dev.fencing.jdbc.guard.Admission.Work<T> call) throws SQLException {
        return guard.withQueryTimeout(queryTimeout, call);
    }

    @Override
    Connection raw() {
        return raw;
    }

    // ---- statements ---------------------------------------------------------------------------------------

    @Override
    public Statement createStatement() throws SQLException {
        return Wrappers.statement(this, raw.createStatement());
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency) throws SQLException {
        return Wrappers.statement(this, raw.createStatement(resultSetType, resultSetConcurrency));
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency, int resultSetHoldability)
            throws SQLException {
        return Wrappers.statement(this, raw.createStatement(resultSetType, resultSetConcurrency, resultSetHoldability));
    }

    @Override
    public PreparedStatement prepareStatement(String sql) throws SQLException {
        return Wrappers.prepared(this, sql, router.analyzePrepared(sql), false, raw::prepareStatement);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
            throws SQLException {
        return Wrappers.prepared(this, sql, router.analyzePrepared(sql), false,
                text -> raw.prepareStatement(text, resultSetType, resultSetConcurrency));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
                                              int resultSetHoldability) throws SQLException {
        return Wrappers.prepared(this, sql, router.analyzePrepared(sql), false,
                text -> raw.prepareStatement(text, resultSetType, resultSetConcurrency, resultSetHoldability));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
        return Wrappers.prepared(this, sql, router.analyzePrepared(sql), autoGeneratedKeys == Statement.RETURN_GENERATED_KEYS,
                text -> raw.prepareStatement(text, autoGeneratedKeys));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
        return Wrappers.prepared(this, sql, router.analyzePrepared(sql), true,
                text -> raw.prepareStatement(text, columnIndexes));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
        return Wrappers.prepared(this, sql, router.analyzePrepared(sql), true,
                text -> raw.prepareStatement(text, columnNames));
    }

    @Override
    public CallableStatement prepareCall(String sql) throws SQLException {
        return Wrappers.callable(this, sql, router.analyzePrepared(sql), raw.prepareCall(sql));
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency) throws SQLException {
        return Wrappers.callable(this, sql, router.analyzePrepared(sql),
                raw.prepareCall(sql, resultSetType, resultSetConcurrency));
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency,
                                         int resultSetHoldability) throws SQLException {
        return Wrappers.callable(this, sql, router.analyzePrepared(sql),
                raw.prepareCall(sql, resultSetType, resultSetConcurrency, resultSetHoldability));
    }

    // ---- transactions -------------------------------------------------------------------------------------

    @Override
    public void setAutoCommit(boolean autoCommit) throws SQLException {
        boolean committing = autoCommit && !raw.getAutoCommit();
        raw.setAutoCommit(autoCommit);
        if (committing) {
            guard.committed();
            guard.admission().ended();
        }
    }

    @Override
    public void commit() throws SQLException {
        try {
            raw.commit();
        } catch (SQLException failure) {
            guard.admission().afterFailure();
            throw failure;
        }
        guard.committed();
        guard.admission().ended();
    }

    @Override
    public void rollback() throws SQLException {
        guard.rolledBack();
        guard.admission().ended();
        raw.rollback();
    }

    /**
     * Kept by the fence, never sent: the server's access mode is the fence's (SPEC C10). {@code true} makes the
     * connection's transactions stay read-only (the fence admits none); {@code false} lets it admit them again.
     * Where the server has no read-only mode the fence keeps (H2, audit mode), the underlying driver gets it.
     */
    @Override
    public void setReadOnly(boolean readOnly) throws SQLException {
        if (!guard.admission().enforced()) {
            raw.setReadOnly(readOnly);
            return;
        }
        guard.admission().setCallerReadOnly(readOnly);
    }

    @Override
    public boolean isReadOnly() throws SQLException {
        return guard.admission().enforced() ? guard.admission().callerReadOnly() : raw.isReadOnly();
    }

    /** A savepoint may be the first statement of a transaction: admitted like any other first statement. */
    @Override
    public Savepoint setSavepoint() throws SQLException {
        guard.admission().beforeStatement(tokens);
        return raw.setSavepoint();
    }

    @Override
    public Savepoint setSavepoint(String name) throws SQLException {
        guard.admission().beforeStatement(tokens);
        return raw.setSavepoint(name);
    }

    @Override
    public void rollback(Savepoint savepoint) throws SQLException {
        guard.rolledBack();
        raw.rollback(savepoint);
    }

    @Override
    public void close() throws SQLException {
        guard.close();
        raw.close();
    }

    // ---- fencing API --------------------------------------------------------------------------------------

    @Override
    public void setFencingToken(long token) throws SQLException {
        try {
            tokens.setConnectionToken(token);
        } catch (FencingRefusedException refusal) {
            refusals.refuse(refusal, "setFencingToken(" + token + ")");
        }
    }

    @Override
    public void clearFencingToken() {
        tokens.clearConnectionToken();
    }

    @Override
    public void setFencingResource(String resource) throws SQLException {
        tokens.setConnectionResource(resource, "setFencingResource");
    }

    @Override
    public String getFencingResource() {
        return tokens.resource();
    }

    @Override
    public OptionalLong getFencingToken() throws SQLException {
        long token = tokens.find(tokens.resource());
        return token > 0 ? OptionalLong.of(token) : OptionalLong.empty();
    }

    @Override
    public long readHighWaterMark(String resource) throws SQLException {
        return guard.readMark(resource);
    }

    @Override
    public void setClientInfo(String name, String value) throws SQLClientInfoException {
        if (Settings.isFencing(name)) {
            try {
                execution.applySetting(name, value, "setClientInfo(" + name + ")", false);
            } catch (SQLException e) {
                throw new SQLClientInfoException(e.getMessage(), e.getSQLState(), Map.of(name,
                        ClientInfoStatus.REASON_VALUE_INVALID), e);
            }
            return;
        }
        raw.setClientInfo(name, value);
    }

    @Override
    public void setClientInfo(Properties properties) throws SQLClientInfoException {
        Properties passed = new Properties();
        for (String name : properties.stringPropertyNames()) {
            if (Settings.isFencing(name)) {
                setClientInfo(name, properties.getProperty(name));
            } else {
                passed.setProperty(name, properties.getProperty(name));
            }
        }
        raw.setClientInfo(passed);
    }

    @Override
    public String getClientInfo(String name) throws SQLException {
        if (Settings.isFencing(name)) {
            FencingProperty setting = FencingProperty.forName(name);
            if (setting == FencingProperty.TOKEN) {
                OptionalLong token = getFencingToken();
                return token.isPresent() ? Long.toString(token.getAsLong()) : null;
            }
            return setting == FencingProperty.RESOURCE ? getFencingResource() : null;
        }
        return raw.getClientInfo(name);
    }

    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        if (metaData == null) {
            metaData = Wrappers.metaData(this, raw.getMetaData());
        }
        return metaData;
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return unwrap(this, raw, type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || (unwrapAllowed && raw.isWrapperFor(type));
    }

    @Override
    public String toString() {
        return "FencedConnection[" + tokens.resource() + "] over " + raw;
    }

    // ---- handing back to a pool, and arrays (the other methods: PassThroughConnection, generated) ---------

    /**
     * Also ends the borrower's use of the connection: HikariCP calls {@code clearWarnings()} on every return of a
     * pooled connection (Apache DBCP2 on passivation), and none tells the driver otherwise, so the connection's own
     * token and resource are forgotten here and never reach the next borrower. Forgotten first, so a failure to
     * clear the warnings cannot keep them.
     */
    @Override
    public void clearWarnings() throws SQLException {
        tokens.handedBack();
        raw.clearWarnings();
    }

    @Override
    public Array createArrayOf(String p1, Object[] p2) throws SQLException {
        return Wrappers.array(this, raw.createArrayOf(p1, p2));
    }

    /** A pool that marks request boundaries (JDBC 4.3) returns the connection: the next borrower starts without its token. */
    @Override
    public void endRequest() throws SQLException {
        tokens.handedBack();
        raw.endRequest();
    }
}
