package dev.fencing.jdbc.internal;

import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencedConnection;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.sql.Analysis;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.GuardedSql;
import dev.fencing.sql.SessionFenceSql;
import dev.fencing.sql.LeaseSql;
import dev.fencing.sql.SqlAnalyzer;
import dev.fencing.sql.StatementKind;

import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.NClob;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.ShardingKey;
import java.sql.Struct;
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
public final class FencedConnectionImpl implements FencedConnection {
    /** One analyzer (and so one cache of analysed SQL) per database kind and epoch table, shared by connections. */
    private static final Map<String, SqlAnalyzer> ANALYZERS = new ConcurrentHashMap<>();

    /** What the driver does with a statement once it knows what the statement is. */
    enum Route { PASS, TRANSACTION_CONTROL, SETTING, GUARD }

    private final Connection raw;
    private final Settings settings;
    private final SqlAnalyzer analyzer;
    private final EpochGuard guard;
    private final TokenResolver tokens;
    private final RefusalPolicy refusals;
    private final boolean unwrapAllowed;
    private final String epochTableName;
    private final String leaseTableName;
    /** The session fence's table's own name (lower-cased), protected in every mode like the epoch table. */
    private final String sessionTableName;
    private final Catalog catalog;
    /** Analyses of texts with JDBC escapes, resolved by this connection's driver ({@code nativeSQL}). */
    private final Map<String, Analysis> escaped = new HashMap<>();
    private final GuardedSql prefixGuard;
    /** Whether a text with the guard ahead runs as one transaction (PostgreSQL, not pgjdbc's simple query mode). */
    private final boolean textIsOneTransaction;
    /** {@code fencing.guard=session}. */
    private final boolean sessionGuard;
    /** Whether the underlying driver puts parameter values into the SQL text itself (see {@link #analyzePrepared}). */
    private final boolean clientInterpolates;
    private FencedDatabaseMetaData metaData;

    FencedConnectionImpl(Connection raw, Settings settings, SqlAnalyzer analyzer, EpochSchema.Tables tables)
            throws SQLException {
        this.raw = raw;
        this.settings = settings;
        this.analyzer = analyzer;
        LeaseSql leaseSql = new LeaseSql(analyzer.epochSql().dialect(), tables.lease());
        IssuerCheck issuerCheck = settings.issuerCheck() && leaseSql.supported()
                ? new IssuerCheck(raw, leaseSql, tables.leasePresent()) : null;
        this.sessionGuard = settings.sessionGuard();
        this.guard = new EpochGuard(raw, analyzer.epochSql(), issuerCheck,
                sessionGuard ? new SessionFenceSql(tables.epoch()) : null);
        this.tokens = new TokenResolver(settings, raw);
        this.refusals = RefusalPolicy.of(settings, analyzer.dialect(), tokens::resource);
        this.unwrapAllowed = settings.unwrapAllowed();
        this.epochTableName = settings.epochTable().simpleName();
        this.leaseTableName = settings.leaseTable().simpleName();
        this.sessionTableName = sessionTable(settings.epochTable()).simpleName();
        this.catalog = Catalog.open(raw, analyzer.dialect(), settings.exemptTables());
        this.prefixGuard = analyzer.epochSql().prefixGuard();
        this.textIsOneTransaction = prefixGuard != null && !SessionProbe.sendsStatementsOneByOne(raw);
        this.clientInterpolates = analyzer.dialect() == Dialect.MARIADB
                || analyzer.dialect() == Dialect.POSTGRESQL && SessionProbe.sendsStatementsOneByOne(raw);
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
                requireSafeClientCharset(raw);
            }
            // The tables are resolved once, here, to qualified names: every guard, lock and advance of this
            // connection names them so, whatever search_path or schema the session moves to later.
            EpochSchema.Tables tables = EpochSchema.prepare(raw, dialect, settings);
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

    /** The session fence's table beside the epoch table (see {@link SessionFenceSql}); protected in every mode. */
    private static EpochTable sessionTable(EpochTable epoch) {
        String name = epoch.simpleName() + SessionFenceSql.SUFFIX;
        return EpochTable.of(name.length() > 63 ? name.substring(0, 63) : name);
    }

    private static SqlAnalyzer newAnalyzer(Dialect dialect, EpochSchema.Tables tables, Settings settings) {
        return new SqlAnalyzer(dialect, tables.epoch(), List.of(tables.lease(), sessionTable(tables.epoch())),
                settings.cacheSize());
    }

    // ---- the statement path -------------------------------------------------------------------------------

    /**
     * What {@code sql} is. A text the analyzer cannot read that holds JDBC escapes ({@code {fn ...}}, {@code {d
     * ...}}, {@code {oj ...}}) is resolved by the underlying driver's {@code nativeSQL} and classified as what the
     * database will run; the result is remembered per connection, since another driver may resolve it otherwise.
     * Call escapes are calls whatever they become, so the analyzer decides those itself.
     */
    Analysis analyze(String sql) throws SQLException {
        Analysis analysis = analyzer.analyze(sql);
        if (analysis.kind() != StatementKind.UNGUARDABLE && !analysis.isOpaque() || sql.indexOf('{') < 0) {
            return analysis;
        }
        Analysis resolved = escaped.get(sql);
        if (resolved == null) {
            String nativeSql = raw.nativeSQL(sql);
            resolved = nativeSql.equals(sql) ? analysis : analyzer.analyze(nativeSql);
            if (escaped.size() >= settings.cacheSize()) {
                escaped.clear();
            }
            escaped.put(sql, resolved);
        }
        return resolved;
    }

    /**
     * {@link #analyze} for a text that is prepared: where the underlying driver puts parameter values into the text
     * itself, a {@code ?} the server reads inside a string or comment is refused, since the driver may read it as a
     * placeholder and its value would become SQL nobody checked.
     */
    Analysis analyzePrepared(String sql) throws SQLException {
        Analysis analysis = analyze(sql);
        if (clientInterpolates && SqlAnalyzer.questionMarkOutsideMarkers(sql, analyzer.dialect())) {
            refusals.refuse(Refusals.cannotGuard("a prepared text with a '?' inside a string, a quoted name or a"
                    + " comment, and a driver that puts parameter values into the text itself (MariaDB/MySQL"
                    + " Connector/J, pgjdbc's simple query mode), which may take it for a placeholder: write the"
                    + " character another way (CHAR(63), chr(63)) or use server-side prepared statements"), sql);
        }
        return analysis;
    }

    /** {@link #route(String, Analysis, boolean)} for a statement that runs later (prepared, or in a batch). */
    Route route(String sql, Analysis analysis) throws SQLException {
        return route(sql, analysis, false);
    }

    /**
     * Decides how a statement proceeds; refuses what must not run (SPEC C5), which audit mode passes untouched.
     *
     * @param runsNow whether the statement is sent right after this decision: only then may a write that reaches
     *                nothing shared (a {@code PREPARE}, a write to the session's temporary tables) skip the lock,
     *                since what a name means can change before a prepared or batched statement runs
     */
    Route route(String sql, Analysis analysis, boolean runsNow) throws SQLException {
        switch (analysis.kind()) {
            case READ_ONLY:
            case SESSION_SETTING:
                if (analyzer.dialect() == Dialect.MARIADB && changesClientCharset(sql, analysis)) {
                    // The server would decode the next texts in another character set than the one they were read
                    // in: a multi-byte set such as gbk can swallow a quote and hide a call (found by review).
                    refusals.refuse(Refusals.cannotGuard("a change of the client character set (SET NAMES, SET"
                            + " CHARACTER SET, character_set_client) to anything but utf8mb4, utf8mb3, utf8, latin1 or"
                            + " ascii: the driver reads SQL in the connection's character set; set it in the URL"), sql);
                }
                if (namesFenceTable(sql) && LOCKS.matcher(sql).find()) {
                    // A lock held on the fence's tables by a connection with no token would hold every epoch change
                    // and every connect off: only the fence locks them.
                    refusals.refuseAlways(Refusals.protectedTable("epoch, session or lease", settings.epochTable()
                            + "', '" + settings.leaseTable()), sql);
                }
                return catalog.needsGuard(analysis) ? Route.GUARD : Route.PASS;
            case TRANSACTION_CONTROL:
                if (sessionGuard && PREPARE_TRANSACTION.matcher(sql).find()) {
                    refusals.refuse(Refusals.cannotGuard("PREPARE TRANSACTION with " + FencingProperty.GUARD.getName()
                            + "=session: a prepared transaction outlives the session an epoch change ends, so its"
                            + " writes could commit after the new mark"), sql);
                }
                return Route.TRANSACTION_CONTROL;
            case FENCING_SETTING:
                return Route.SETTING;
            case MUTATION:
                if (analysis.targetTables().contains(epochTableName)) {
                    refusals.refuseAlways(Refusals.protectedTable("epoch", settings.epochTable().toString()), sql);
                }
                if (analysis.targetTables().contains(leaseTableName)) {
                    refusals.refuseAlways(Refusals.protectedTable("lease", settings.leaseTable().toString()), sql);
                }
                if (analysis.targetTables().contains(sessionTableName)) {
                    refusals.refuseAlways(Refusals.protectedTable("session", sessionTableName), sql);
                }
                if (runsNow && reachesNothingShared(sql, analysis)) {
                    return Route.PASS;
                }
                catalog.createdTemporaryTable(analysis.createdTemporaryTable());
                if (!catalog.needsGuard(analysis)) {
                    return Route.PASS;
                }
                if (commitsBetween(analysis.statementCount(), analysis.mayEndTransaction())) {
                    refusals.refuse(Refusals.cannotGuard("several statements in one text, one of which may end the"
                            + " transaction (DDL commits on its own here): send them as separate statements"), sql);
                    return Route.PASS;
                }
                return Route.GUARD;
            default:
                if (refusals.audit() && namesFenceTable(sql)) {
                    // Audit mode would run it untouched, and nobody can tell what it does to the fence's tables.
                    refusals.refuseAlways(Refusals.protectedTable("epoch or lease", settings.epochTable() + "', '"
                            + settings.leaseTable()), sql);
                }
                refusals.refuse(Refusals.cannotGuard(analysis.reason()), sql);
                return Route.PASS;
        }
    }

    /**
     * Whether a mutation about to be sent reaches nothing another session can see: a {@code PREPARE} of a write (the
     * {@code EXECUTE} is the mutation) or a write to the session's own temporary tables, as the database resolves
     * them now. Such a statement needs a token that is not stale, and takes no lock (issue 11, item 3), so it works
     * in {@code READ ONLY} transactions as it does through the underlying driver. Call it right before sending.
     */
    boolean reachesNothingShared(String sql, Analysis analysis) throws SQLException {
        if (analysis.kind() != StatementKind.MUTATION
                || !analysis.preparesOnly() && !catalog.writesOnlyTemporaryTables(analysis)) {
            return false;
        }
        refuseUnlessCurrent(sql);
        return true;
    }

    /**
     * For a statement that writes nothing shared ({@code PREPARE} of a write, a write to the session's temporary
     * tables): refuses a missing, invalid or stale token, reading the mark without a lock, which works in
     * {@code READ ONLY} transactions too.
     */
    private void refuseUnlessCurrent(String sql) throws SQLException {
        String resource = tokens.resource();
        try {
            long token = tokens.token(resource);
            long mark = guard.readMark(resource);
            if (mark > token) {
                throw Refusals.stale(resource, token, mark);
            }
        } catch (FencingRefusedException refusal) {
            refusals.refuse(refusal, sql);
        }
    }

    /**
     * MariaDB/MySQL: the server must decode the client's bytes in a character set where quotes, backslashes and
     * backticks are bytes of their own, as the driver's lexer reads them ({@code sessionVariables} or
     * {@code characterEncoding} in the URL could choose gbk or sjis).
     */
    private static void requireSafeClientCharset(Connection raw) throws SQLException {
        try (java.sql.Statement s = raw.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT @@character_set_client, @@character_set_connection LIMIT 1")) {
            if (rs.next()) {
                for (int i = 1; i <= 2; i++) {
                    String charset = String.valueOf(rs.getString(i)).toLowerCase(Locale.ROOT);
                    if (!java.util.Set.of("utf8mb4", "utf8mb3", "utf8", "latin1", "ascii").contains(charset)) {
                        throw Settings.configuration("the connection's client character set is " + charset + ", in"
                                + " which a quote or backtick can be part of another character: use utf8mb4");
                    }
                }
            }
        }
    }

    /** Settings that change how MariaDB decodes the client's bytes. */
    private static final java.util.regex.Pattern CLIENT_CHARSET = java.util.regex.Pattern.compile(
            "(?i)\\b(names|character\\s+set|charset|character_set_client|character_set_connection)\\b");
    /** A character set variable named anywhere, in a statement that is not a setting ({@code SET STATEMENT}). */
    private static final java.util.regex.Pattern CHARSET_VARIABLE = java.util.regex.Pattern.compile(
            "(?i)character_set_");
    /** A change to a character set in which every quote, backslash and backtick is one byte of its own. */
    private static final java.util.regex.Pattern SAFE_CHARSET = java.util.regex.Pattern.compile(
            "(?i)\\s*set\\s+(session\\s+|@@(session\\.)?)?(names|character\\s+set|charset|character_set_client"
                    + "|character_set_connection)\\s*(=\\s*)?'?(utf8mb4|utf8mb3|utf8|latin1|ascii)'?"
                    + "(\\s+collate\\s+'?[a-z0-9_]+'?)?\\s*;?\\s*");

    /** Whether a MariaDB/MySQL statement may change the client character set to one that is not safe. */
    static boolean changesClientCharset(String sql, Analysis analysis) {
        boolean setting = analysis.kind() == StatementKind.SESSION_SETTING || CHARSET_VARIABLE.matcher(sql).find();
        return setting && CLIENT_CHARSET.matcher(sql).find() && !SAFE_CHARSET.matcher(sql).matches();
    }

    /** Words of a statement that locks what it reads ({@code LOCK TABLE}, {@code FOR UPDATE}/{@code SHARE}). */
    private static final java.util.regex.Pattern LOCKS = java.util.regex.Pattern.compile(
            "(?i)\\b(lock|for\\s+(update|share|no\\s+key\\s+update|key\\s+share))\\b");
    /** Two-phase commit's first step. */
    private static final java.util.regex.Pattern PREPARE_TRANSACTION = java.util.regex.Pattern.compile(
            "(?i)\\bprepare\\s+transaction\\b");

    /**
     * Whether {@code sql} holds the epoch, session or lease table's name as a word, in any case (quoted or not).
     * On the read path: compares in place, without a lower-cased copy of the text.
     */
    private boolean namesFenceTable(String sql) {
        return containsWord(sql, epochTableName) || containsWord(sql, sessionTableName)
                || containsWord(sql, leaseTableName);
    }

    /** Whether {@code text} holds {@code word} (lower case) as a whole word, ignoring case. */
    private static boolean containsWord(String text, String word) {
        for (int at = 0, last = text.length() - word.length(); at <= last; at++) {
            if (text.regionMatches(true, at, word, 0, word.length())
                    && (at == 0 || !identifierPart(text.charAt(at - 1)))
                    && (at + word.length() == text.length() || !identifierPart(text.charAt(at + word.length())))) {
                return true;
            }
        }
        return false;
    }

    private static boolean identifierPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    /** Refuses {@code sql}: thrown in enforce mode; in audit mode recorded, and the caller goes on untouched. */
    void refuse(FencingRefusedException refusal, String sql) throws FencingRefusedException {
        refusals.refuse(refusal, sql);
    }

    /**
     * Applies {@code SET fencing.token = n}, {@code SET fencing.resource = 'r'} or {@code RESET fencing.*} sent as
     * SQL. {@code SET LOCAL} is taken only for {@code fencing.token} on PostgreSQL, where the server keeps it for
     * exactly its transaction; elsewhere no server can say when it ends, so it is refused ({@code ZF006}).
     */
    void applySetting(Analysis analysis) throws SQLException {
        String name = analysis.settingName();
        if (!analysis.isLocalSetting()) {
            applySetting(name, analysis.settingValue(), "SET " + name, true);
            return;
        }
        String source = "SET LOCAL " + name;
        String token = FencingProperty.TOKEN.getName();
        if (!name.equals(token) || analyzer.dialect() != Dialect.POSTGRESQL) {
            throw Settings.configuration(source + " is not supported"
                    + (name.equals(token) ? " on " + analyzer.dialect() : "; only SET LOCAL " + token
                    + " is, on PostgreSQL") + ": use SET " + name + " for the connection, or Fencing.scope(resource,"
                    + " token) for a block of code");
        }
        try {
            tokens.setLocalToken(analysis.settingValue(), source);
        } catch (FencingRefusedException refusal) {
            refusals.refuse(refusal, source);
        }
    }

    /** A setting from SQL ({@code sql}: as on PostgreSQL, it ends a local token too) or from client info. */
    private void applySetting(String name, String value, String source, boolean sql) throws SQLException {
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

    /**
     * The guard statement sent ahead of a statement in the same round trip, or {@code null} where the database
     * has none (see {@link dev.fencing.sql.EpochSql#prefixGuard()}).
     */
    GuardedSql prefixGuard() {
        return prefixGuard;
    }

    /**
     * The text sent for the caller's {@code text} with {@code guard} ahead of it, proved to be the guard, one
     * {@code ;} and the caller's text byte for byte (SPEC C8) before it is sent: a failure is the driver's own bug,
     * refused rather than sent.
     */
    static String guardAhead(String guard, String text) throws SQLException {
        String sent = GuardedSql.ahead(guard, text);
        if (!GuardedSql.isGuardThenText(sent, guard, text)) {
            throw Refusals.cannotGuard("the text to send is not the guard followed by the statement unchanged");
        }
        return sent;
    }

    /**
     * Whether the database may commit between {@code statements} sent together (a text or a batch) when one of them
     * may end the transaction: H2 and MariaDB commit on their own before DDL, which would drop the lock the guard
     * took for all of them. (A PostgreSQL procedure's or block's COMMIT fails in the transaction the guard holds.)
     */
    boolean commitsBetween(int statements, boolean mayEndTransaction) {
        return statements > 1 && mayEndTransaction && analyzer.dialect().commitsImplicitly();
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

    /**
     * Runs a mutation fenced with the token in force: the guard protocol, or the refusal of a missing, invalid or
     * stale token, which in audit mode runs {@code call} untouched instead.
     */
    <T> T fence(String sql, boolean prefixable, boolean repeatable, EpochGuard.Call<T> call) throws SQLException {
        String resource = tokens.resource();
        try {
            long token = tokens.token(resource);
            T result = guard.run(resource, token, prefixable, repeatable, call);
            FenceMetrics.of(resource).guarded(token);
            return result;
        } catch (FencingRefusedException refusal) {
            // Raised before the call ran (token resolution, or the guard's lock or advance): nothing changed yet.
            refusals.refuse(refusal, sql);
            return call.untouched();
        }
    }

    /**
     * Before a statement that needs no token: under the session fence, a session with a token but no
     * registration registers when the server has no transaction open, so that the writes of a transaction that
     * starts with a read go untouched too. Nothing is refused here: a read needs no token.
     */
    void beforeRead() {
        if (sessionGuard) {
            guard.registerForRead(tokens);
        }
    }

    /** Runs an updatable result set's row change fenced, untouched, after the guard. */
    <T> T runFenced(Action<T> action) throws SQLException {
        return runFenced("updatable ResultSet: insertRow/updateRow/deleteRow", action);
    }

    /** Runs a write that cannot carry the guard (a batch, a row change) untouched, after the guard has locked. */
    <T> T runFenced(String statement, Action<T> action) throws SQLException {
        return fence(statement, false, true, new EpochGuard.Call<>() {
            @Override
            public T withGuard(String r, long t) {
                throw new IllegalStateException("an action cannot carry a guard statement");
            }

            @Override
            public T untouched() throws SQLException {
                return action.run();
            }
        });
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

    /** A write the guard runs once the epoch row is locked. */
    interface Action<T> {
        T run() throws SQLException;
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

    EpochGuard guard() {
        return guard;
    }

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
        return Wrappers.prepared(this, sql, analyzePrepared(sql), false, raw::prepareStatement);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
            throws SQLException {
        return Wrappers.prepared(this, sql, analyzePrepared(sql), false,
                text -> raw.prepareStatement(text, resultSetType, resultSetConcurrency));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
                                              int resultSetHoldability) throws SQLException {
        return Wrappers.prepared(this, sql, analyzePrepared(sql), false,
                text -> raw.prepareStatement(text, resultSetType, resultSetConcurrency, resultSetHoldability));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
        return Wrappers.prepared(this, sql, analyzePrepared(sql), autoGeneratedKeys == Statement.RETURN_GENERATED_KEYS,
                text -> raw.prepareStatement(text, autoGeneratedKeys));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
        return Wrappers.prepared(this, sql, analyzePrepared(sql), true,
                text -> raw.prepareStatement(text, columnIndexes));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
        return Wrappers.prepared(this, sql, analyzePrepared(sql), true,
                text -> raw.prepareStatement(text, columnNames));
    }

    @Override
    public CallableStatement prepareCall(String sql) throws SQLException {
        return Wrappers.callable(this, sql, analyzePrepared(sql), raw.prepareCall(sql));
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency) throws SQLException {
        return Wrappers.callable(this, sql, analyzePrepared(sql),
                raw.prepareCall(sql, resultSetType, resultSetConcurrency));
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency,
                                         int resultSetHoldability) throws SQLException {
        return Wrappers.callable(this, sql, analyzePrepared(sql),
                raw.prepareCall(sql, resultSetType, resultSetConcurrency, resultSetHoldability));
    }

    // ---- transactions -------------------------------------------------------------------------------------

    @Override
    public void setAutoCommit(boolean autoCommit) throws SQLException {
        boolean committing = autoCommit && !raw.getAutoCommit();
        raw.setAutoCommit(autoCommit);
        if (committing) {
            guard.committed();
        }
    }

    @Override
    public boolean getAutoCommit() throws SQLException {
        return raw.getAutoCommit();
    }

    @Override
    public void commit() throws SQLException {
        raw.commit();
        guard.committed();
    }

    @Override
    public void rollback() throws SQLException {
        guard.rolledBack();
        raw.rollback();
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
                applySetting(name, value, "setClientInfo(" + name + ")", false);
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
    public Properties getClientInfo() throws SQLException {
        return raw.getClientInfo();
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

    // ---- plain delegation ---------------------------------------------------------------------------------

    @Override
    public void abort(java.util.concurrent.Executor p1) throws SQLException {
        raw.abort(p1);
    }

    @Override
    public void beginRequest() throws SQLException {
        raw.beginRequest();
    }

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

    @Override
    public Blob createBlob() throws SQLException {
        return raw.createBlob();
    }

    @Override
    public Clob createClob() throws SQLException {
        return raw.createClob();
    }

    @Override
    public NClob createNClob() throws SQLException {
        return raw.createNClob();
    }

    @Override
    public SQLXML createSQLXML() throws SQLException {
        return raw.createSQLXML();
    }

    @Override
    public Struct createStruct(String p1, Object[] p2) throws SQLException {
        return raw.createStruct(p1, p2);
    }

    /** A pool that marks request boundaries (JDBC 4.3) returns the connection: the next borrower starts without its token. */
    @Override
    public void endRequest() throws SQLException {
        tokens.handedBack();
        raw.endRequest();
    }

    @Override
    public String getCatalog() throws SQLException {
        return raw.getCatalog();
    }

    @Override
    public int getHoldability() throws SQLException {
        return raw.getHoldability();
    }

    @Override
    public int getNetworkTimeout() throws SQLException {
        return raw.getNetworkTimeout();
    }

    @Override
    public String getSchema() throws SQLException {
        return raw.getSchema();
    }

    @Override
    public int getTransactionIsolation() throws SQLException {
        return raw.getTransactionIsolation();
    }

    @Override
    public java.util.Map<String, Class<?>> getTypeMap() throws SQLException {
        return raw.getTypeMap();
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return raw.getWarnings();
    }

    @Override
    public boolean isClosed() throws SQLException {
        return raw.isClosed();
    }

    @Override
    public boolean isReadOnly() throws SQLException {
        return raw.isReadOnly();
    }

    @Override
    public boolean isValid(int p1) throws SQLException {
        return raw.isValid(p1);
    }

    @Override
    public String nativeSQL(String p1) throws SQLException {
        return raw.nativeSQL(p1);
    }

    @Override
    public void releaseSavepoint(Savepoint p1) throws SQLException {
        raw.releaseSavepoint(p1);
    }

    @Override
    public void setCatalog(String p1) throws SQLException {
        raw.setCatalog(p1);
    }

    @Override
    public void setHoldability(int p1) throws SQLException {
        raw.setHoldability(p1);
    }

    @Override
    public void setNetworkTimeout(java.util.concurrent.Executor p1, int p2) throws SQLException {
        raw.setNetworkTimeout(p1, p2);
    }

    @Override
    public void setReadOnly(boolean p1) throws SQLException {
        raw.setReadOnly(p1);
    }

    @Override
    public Savepoint setSavepoint() throws SQLException {
        return raw.setSavepoint();
    }

    @Override
    public Savepoint setSavepoint(String p1) throws SQLException {
        return raw.setSavepoint(p1);
    }

    @Override
    public void setSchema(String p1) throws SQLException {
        raw.setSchema(p1);
    }

    @Override
    public void setShardingKey(ShardingKey p1, ShardingKey p2) throws SQLException {
        raw.setShardingKey(p1, p2);
    }

    @Override
    public void setShardingKey(ShardingKey p1) throws SQLException {
        raw.setShardingKey(p1);
    }

    @Override
    public boolean setShardingKeyIfValid(ShardingKey p1, int p2) throws SQLException {
        return raw.setShardingKeyIfValid(p1, p2);
    }

    @Override
    public boolean setShardingKeyIfValid(ShardingKey p1, ShardingKey p2, int p3) throws SQLException {
        return raw.setShardingKeyIfValid(p1, p2, p3);
    }

    @Override
    public void setTransactionIsolation(int p1) throws SQLException {
        raw.setTransactionIsolation(p1);
    }

    @Override
    public void setTypeMap(java.util.Map<String, Class<?>> p1) throws SQLException {
        raw.setTypeMap(p1);
    }

}
