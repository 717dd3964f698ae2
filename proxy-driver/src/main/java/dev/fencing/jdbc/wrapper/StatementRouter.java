package dev.fencing.jdbc.wrapper;

import dev.fencing.jdbc.guard.Catalog;
import dev.fencing.jdbc.guard.EpochGuard;
import dev.fencing.jdbc.guard.SessionProbe;
import dev.fencing.jdbc.audit.RefusalPolicy;
import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.jdbc.config.Settings;
import dev.fencing.jdbc.config.TokenResolver;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.sql.Analysis;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.SqlAnalyzer;
import dev.fencing.sql.StatementKind;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The "decide" step of one connection: what a statement is ({@link SqlAnalyzer}, cached per text, with JDBC escapes
 * resolved by the underlying driver) and what the driver does with it ({@link Route}), refusing during
 * classification what must not run at all (SPEC C5): writes to the fence's own tables, locks on them, unsafe client
 * character sets, texts that could commit between their statements, SQL nobody can read. What a refusal does
 * (throw, or record in audit mode) is {@link RefusalPolicy}'s; its wording is {@link Refusals}'.
 */
final class StatementRouter {
    /** What the driver does with a statement once it knows what the statement is. */
    enum Route { PASS, TRANSACTION_CONTROL, SETTING, GUARD }

    private final Connection raw;
    private final Settings settings;
    private final SqlAnalyzer analyzer;
    private final RefusalPolicy refusals;
    private final Catalog catalog;
    private final TokenResolver tokens;
    private final EpochGuard guard;
    private final String epochTableName;
    private final String leaseTableName;
    /** The session fence's table's own name (folded), protected in every mode like the epoch table. */
    private final String sessionTableName;
    /** The resource table's own name, lower-cased: it is written only by the {@code fencing} command (SPEC C11). */
    private final String resourceTableName;
    /** Analyses of texts with JDBC escapes, resolved by this connection's driver ({@code nativeSQL}). */
    private final Map<String, Analysis> escaped = new HashMap<>();
    /** {@code fencing.guard=session}. */
    private final boolean sessionGuard;
    /** Whether the underlying driver puts parameter values into the SQL text itself (see {@link #analyzePrepared}). */
    private final boolean clientInterpolates;
    /**
     * MariaDB/MySQL: what this connection saw prepared by SQL under each statement name ({@code PREPARE name FROM
     * '...'} that succeeded), so that {@code EXECUTE name} is guarded as what it runs; a name is forgotten before any
     * text that prepares or deallocates it is sent, whatever that text's outcome. A name not here cannot be executed.
     */
    private final Map<String, Analysis> preparedByName = new HashMap<>();
    /** Stands in {@link #preparedByName} for a name the connection saw deallocated, and nothing prepared since. */
    private static final Analysis DEALLOCATED = Analysis.placeholder();

    StatementRouter(Connection raw, Settings settings, SqlAnalyzer analyzer, RefusalPolicy refusals, Catalog catalog,
                    TokenResolver tokens, EpochGuard guard, String sessionTableName) {
        this.raw = raw;
        this.settings = settings;
        this.analyzer = analyzer;
        this.refusals = refusals;
        this.catalog = catalog;
        this.tokens = tokens;
        this.guard = guard;
        this.epochTableName = settings.epochTable().simpleName();
        this.leaseTableName = settings.leaseTable().simpleName();
        this.sessionTableName = sessionTableName;
        this.resourceTableName = dev.fencing.sql.ResourceTableSql.resourceTableOf(analyzer.dialect(),
                settings.epochTable()).simpleName();
        this.sessionGuard = settings.sessionGuard();
        this.clientInterpolates = analyzer.dialect() == Dialect.MARIADB
                || analyzer.dialect() == Dialect.POSTGRESQL && SessionProbe.sendsStatementsOneByOne(raw);
    }

    /**
     * What {@code sql} is. A text the analyzer cannot read that holds JDBC escapes ({@code {fn ...}}, {@code {d
     * ...}}, {@code {oj ...}}) is resolved by the underlying driver's {@code nativeSQL} and classified as what the
     * database will run; the result is remembered per connection, since another driver may resolve it otherwise.
     * Call escapes are calls whatever they become, so the analyzer decides those itself.
     */
    Analysis analyze(String sql) throws SQLException {
        Analysis analysis = analyzer.analyze(sql);
        if (analysis.readsByBackslashMode() && sql.indexOf('{') < 0) {
            // MariaDB/MySQL: the strings end where the session's NO_BACKSLASH_ESCAPES says, which the server reports
            analysis = analyzer.analyze(sql, guard.noBackslashEscapes());
        }
        if (analysis.executedName() != null) {
            Analysis prepared = preparedByName.get(analysis.executedName());
            if (prepared == DEALLOCATED) {
                return SqlAnalyzer.executingNothing(analysis);
            }
            return prepared == null ? analysis : SqlAnalyzer.executing(prepared, analysis);
        }
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
     * Before a text is sent (or queued in a batch): forgets what the connection knew of the SQL-level prepared
     * statements it prepares again or deallocates, whatever comes of it (a failed {@code PREPARE} leaves no statement
     * under its name on MariaDB).
     */
    void beforeSending(Analysis analysis) {
        for (String name : analysis.forgetsPrepared()) {
            if (name.equals("*")) {
                preparedByName.clear();
            } else {
                preparedByName.remove(name);
            }
        }
    }

    /**
     * After a text ran without error: remembers what a {@code PREPARE name FROM '...'} prepared under its name, or
     * that a {@code DEALLOCATE PREPARE name} left nothing there.
     */
    void afterSent(Analysis analysis) {
        if (analysis.preparedName() != null) {
            if (preparedByName.size() >= settings.cacheSize()) {
                preparedByName.clear();
            }
            preparedByName.put(analysis.preparedName(),
                    analysis.preparedStatement() == null ? DEALLOCATED : analysis.preparedStatement());
        }
    }

    /**
     * {@link #analyze} for a text that is prepared: where the underlying driver puts parameter values into the text
     * itself, a {@code ?} the server reads inside a string or comment is refused, since the driver may read it as a
     * placeholder and its value would become SQL nobody checked.
     */
    Analysis analyzePrepared(String sql) throws SQLException {
        Analysis analysis = analyze(sql);
        if (clientInterpolates && SqlAnalyzer.questionMarkOutsideMarkers(sql, analyzer.dialect(),
                analysis.backslashEscapes())) {
            refusals.refuse(Refusals.questionMarkInText(), sql);
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
        if (analysis.changesClientCharset()) {
            // The server would decode the next texts in another character set than the one they were read in: a
            // multi-byte set such as gbk can swallow a quote and hide a call (found by review), whatever the token.
            refusals.refuse(Refusals.clientCharset(), sql);
        }
        if (runsQuery(analysis)) {
            // Before the catalog's questions: the first of them would open the transaction of auto-commit off
            // read-only, before the statement it is asked for could admit it (SPEC C10).
            guard.admission().beforeStatement(tokens);
        }
        String unfenceable = analysis.kind() == StatementKind.READ_ONLY
                || analysis.kind() == StatementKind.SESSION_SETTING || analysis.kind() == StatementKind.MUTATION
                ? catalog.unfenceableCall(analysis) : null;
        if (unfenceable != null) {
            refusals.refuse(Refusals.unfenceableFunction(unfenceable), sql);
        }
        switch (analysis.kind()) {
            case READ_ONLY:
            case SESSION_SETTING:
                if (analysis.namesProtectedTable() && analysis.locksRows()) {
                    // A lock held on the fence's tables by a connection with no token would hold every epoch change
                    // and every connect off: only the fence locks them.
                    refusals.refuseAlways(Refusals.protectedTable("epoch, session or lease", settings.epochTable()
                            + "', '" + settings.leaseTable()), sql);
                }
                // A locking read writes row locks, which the server refuses in read-only work: a current token's
                // guard opens the read-write transaction it needs (SPEC C10).
                return catalog.needsGuard(analysis) || analysis.locksRows() && guard.admission().enforced()
                        && analysis.kind() == StatementKind.READ_ONLY && analyzer.dialect() == Dialect.POSTGRESQL
                        ? Route.GUARD : Route.PASS;
            case TRANSACTION_CONTROL:
                if (sessionGuard && analysis.preparesTransaction()) {
                    refusals.refuse(Refusals.prepareTransactionUnderSessionFence(), sql);
                }
                if (analysis.transactionControl().liftsReadOnly() && guard.admission().enforced()) {
                    requireReadWriteAllowed(sql, analysis);
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
                if (analysis.targetTables().contains(resourceTableName)) {
                    refusals.refuseAlways(Refusals.protectedTable("resource", resourceTableName), sql);
                }
                if (sessionTableName != null && analysis.targetTables().contains(sessionTableName)) {
                    refusals.refuseAlways(Refusals.protectedTable("session", sessionTableName), sql);
                }
                if (runsNow && (runsAlone(sql, analysis) || reachesNothingShared(sql, analysis))) {
                    return Route.PASS;
                }
                catalog.createdTemporaryTable(analysis.createdTemporaryTable());
                if (!catalog.needsGuard(analysis, () -> !runsNow || !guard.admission().inCallersTransaction())) {
                        return Route.PASS;
                }
                if (commitsBetween(analysis.statementCount(), analysis.mayEndTransaction())) {
                    refusals.refuse(Refusals.textMayEndTransaction(), sql);
                    return Route.PASS;
                }
                if (analysis.queriesAfterImplicitCommit()
                        && catalog.mayWriteAfterImplicitCommit(analysis, analyzer::analyze)) {
                    // CREATE TABLE ... SELECT f(), or SELECT from a view calling f: the server commits (releasing the
                    // guard's lock) before the query, so f would write after a hand-over that came meanwhile
                    // (measured on MariaDB 10.11, both ways).
                    refusals.refuse(Refusals.cannotGuard("the statement commits on its own before its query runs, so"
                            + " a function it calls would write after the guard's lock was released: create the table"
                            + " first, then INSERT ... SELECT"), sql);
                    return Route.PASS;
                }
                return Route.GUARD;
            default:
                if (refusals.audit() && analysis.namesProtectedTable()) {
                    // Audit mode would run it untouched, and nobody can tell what it does to the fence's tables.
                    refusals.refuseAlways(Refusals.protectedTable("epoch or lease", settings.epochTable() + "', '"
                            + settings.leaseTable()), sql);
                }
                refusals.refuse(Refusals.cannotGuard(analysis.reason()), sql);
                return Route.PASS;
        }
    }

    /**
     * Whether the statement may run a query in the caller's transaction, so that a transaction it starts is admitted
     * before it: not transaction control, {@code SET fencing.*} or a session setting, which run none.
     */
    static boolean runsQuery(Analysis analysis) {
        StatementKind kind = analysis.kind();
        return kind != StatementKind.TRANSACTION_CONTROL && kind != StatementKind.FENCING_SETTING
                && kind != StatementKind.SESSION_SETTING;
    }

    /**
     * {@code BEGIN ... READ WRITE} or {@code SET TRANSACTION READ WRITE} asks the server to lift its read-only mode
     * for the transaction (SPEC C10): only with a token in force, which the admission that follows it checks, and
     * only as a text of its own (what follows it in the same text would run read-write before any check).
     * MariaDB/MySQL's {@code SET TRANSACTION READ WRITE} makes the next transaction read-write, which may be the
     * next auto-commit statement: it is refused.
     */
    private void requireReadWriteAllowed(String sql, Analysis analysis) throws SQLException {
        if (analysis.statementCount() > 1) {
            refusals.refuse(Refusals.cannotGuard("a statement that makes the transaction read-write must be a text"
                    + " of its own"), sql);
            return;
        }
        if (analyzer.dialect() == Dialect.MARIADB
                && analysis.transactionControl() == dev.fencing.sql.TransactionControl.SET_TRANSACTION_READ_WRITE) {
            refusals.refuse(Refusals.cannotGuard("SET TRANSACTION READ WRITE makes the next transaction read-write,"
                    + " which may be the next auto-commit statement; use START TRANSACTION READ WRITE"), sql);
            return;
        }
        try {
            tokens.token(tokens.resource());
        } catch (FencingRefusedException refusal) {
            refusals.refuse(refusal, sql);
        }
    }

    /** Whether tables are mapped to resources: see {@link Catalog#mapsTables}. */
    boolean mapsTables() {
        return catalog.mapsTables();
    }

    /**
     * The resources the given writes need current tokens for (SPEC C11), {@code primary} standing for unmapped
     * tables; a {@code null} write is one whose tables the driver cannot name.
     */
    java.util.Set<String> resourcesOf(List<Analysis> writes, String primary) throws SQLException {
        if (writes.size() == 1) {
            return catalog.resourcesOf(writes.get(0), primary);
        }
        java.util.Set<String> all = new java.util.TreeSet<>();
        for (Analysis write : writes) {
            all.addAll(catalog.resourcesOf(write, primary));
        }
        return all.isEmpty() ? java.util.Set.of(primary) : all;
    }

    /**
     * Whether a mutation about to be sent reaches nothing another session can see: a {@code PREPARE} of a write (the
     * {@code EXECUTE} is the mutation) or a write to the session's own temporary tables, as the database resolves
     * them now. Such a statement needs a token that is not stale, and takes no lock (issue 11, item 3), so it works
     * in {@code READ ONLY} transactions as it does through the underlying driver. Call it right before sending.
     */
    boolean reachesNothingShared(String sql, Analysis analysis) throws SQLException {
        if (analysis.kind() != StatementKind.MUTATION
                || !analysis.preparesOnly() && !catalog.writesOnlyTemporaryTables(analysis,
                () -> !guard.admission().inCallersTransaction())) {
            return false;
        }
        refuseUnlessCurrent(sql);
        return true;
    }

    /**
     * Whether a mutation about to be sent is one PostgreSQL runs only outside a transaction block ({@code VACUUM},
     * {@code ALTER SYSTEM}, ...): no guard can share its transaction, and a guard would only make the server refuse
     * it ({@code 25001}). It needs a token that is not stale, read without a lock, and is sent on its own; what it
     * runs is not atomic with that check (docs/limits.md). Call it right before sending.
     */
    private boolean runsAlone(String sql, Analysis analysis) throws SQLException {
        if (!analysis.runsOutsideTransaction()) {
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
    static void requireSafeClientCharset(Connection raw) throws SQLException {
        try (java.sql.Statement s = raw.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT @@character_set_client, @@character_set_connection LIMIT 1")) {
            if (rs.next()) {
                for (int i = 1; i <= 2; i++) {
                    String charset = rs.getString(i);
                    if (!SqlAnalyzer.isSafeClientCharset(charset)) {
                        throw Settings.configuration("the connection's client character set is " + charset + ", in"
                                + " which a quote or backtick can be part of another character: use utf8mb4");
                    }
                }
            }
        }
    }

    /**
     * {@link #route(String, Analysis)} for a statement added to a batch: transaction control and {@code SET
     * fencing.*} cannot be part of one (audit mode records the refusal and queues the statement as it is).
     */
    Route routeInBatch(String sql, Analysis analysis) throws SQLException {
        if (analysis.backslashEscapes() != null) {
            // a statement before it in the batch may change the session's sql_mode, and the server would read it so
            refusals.refuse(Refusals.cannotGuard("a statement whose strings end where the session's sql_mode says"
                    + " (NO_BACKSLASH_ESCAPES) cannot be part of a batch: an earlier statement could change the mode"),
                    sql);
        }
        Route route = route(sql, analysis);
        if (route != Route.PASS && route != Route.GUARD) {
            refusals.refuse(Refusals.notInBatch(), sql);
        }
        return route;
    }

    /** {@code addBatch(String)} on a prepared statement: a driver that queued the text would run it unanalysed. */
    void refuseTextInPreparedBatch(String sql) throws SQLException {
        refusals.refuse(Refusals.textInPreparedBatch(), sql);
    }

    /** {@link #route(String, Analysis)} right before a prepared statement is sent (see {@link #reachesNothingShared}). */
    Route routeNow(String sql, Analysis analysis, Route prepared) throws SQLException {
        if (analysis.backslashEscapes() != null && analysis.backslashEscapes() == guard.noBackslashEscapes()) {
            // read in the mode the session had when it was prepared, which has changed since
            refusals.refuse(Refusals.cannotGuard("the session's NO_BACKSLASH_ESCAPES changed since the statement was"
                    + " prepared, and its strings end elsewhere now: prepare it again"), sql);
        }
        return prepared == Route.GUARD && (runsAlone(sql, analysis) || reachesNothingShared(sql, analysis))
                ? Route.PASS : prepared;
    }

    /**
     * Whether the database may commit between {@code statements} sent together (a text or a batch) when one of them
     * may end the transaction: H2 and MariaDB commit on their own before DDL, which would drop the lock the guard
     * took for all of them. (A PostgreSQL procedure's or block's COMMIT fails in the transaction the guard holds.)
     */
    boolean commitsBetween(int statements, boolean mayEndTransaction) {
        return statements > 1 && mayEndTransaction && analyzer.dialect().commitsImplicitly();
    }

    /** Whether the statement calls a function the catalog says may write. */
    boolean callsWritingFunction(Analysis analysis) throws SQLException {
        return catalog.callsWritingFunction(analysis);
    }

    Dialect dialect() {
        return analyzer.dialect();
    }
}
