package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.jdbc.audit.SqlStates;
import dev.fencing.jdbc.config.Settings;
import dev.fencing.jdbc.config.TokenResolver;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.ReadOnlySql;
import dev.fencing.sql.TransactionControl;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Keeps the work of one connection that the fence has not admitted read-only on the server (SPEC C10), so that a
 * write the driver took for a read (a function it never asked about, a text it split otherwise than the server)
 * fails on the server and changes nothing. The session is read-only by default (PostgreSQL: from its startup
 * options, so {@code RESET ALL} and {@code DISCARD ALL} return to read-only; MariaDB/MySQL: {@code SET SESSION
 * TRANSACTION READ ONLY}); only admission opens a read-write transaction, and only for work a current token
 * covers: a guarded statement's own transaction (the guard's text starts it read-write), a caller's transaction that
 * starts with a token in force (admitted by the epoch-row lock before its first statement; a token that is not
 * current leaves it read-only), and a session the session fence registered.
 *
 * <p>What it believes (whether the current transaction was admitted) only ever saves a round trip or refuses
 * early: a transaction it wrongly believes admitted is still read-only on the server.
 */
public final class Admission {
    private final Connection raw;
    private final Dialect dialect;
    /** {@code null} when nothing is enforced: audit mode, or a database without a session read-only mode (H2). */
    private final ReadOnlySql sql;
    private final SessionProbe probe;
    private final EpochGuard guard;
    /** pgjdbc's {@code PGConnection} and its {@code getParameterStatus}, or {@code null}. */
    private final Object reporter;
    private final Method reported;
    private Statement control;
    /** Whether the current transaction was admitted by the epoch-row lock at its start. */
    private boolean admitted;
    /** Whether the caller asked for read-only work ({@code setReadOnly(true)}, {@code BEGIN READ ONLY}). */
    private boolean callerReadOnly;
    private boolean transactionReadOnlyByCaller;
    /** The caller made the session's transactions read-only by SQL ({@code SET SESSION CHARACTERISTICS ...}). */
    private boolean sessionReadOnlyByCaller;
    /** MariaDB: the next transaction was made read-write ahead of the caller's {@code BEGIN}. */
    private boolean readWriteAhead;
    /** A transaction is open that no query ran in yet and that waits for admission at its first query. */
    private boolean pending;
    /** Why the current transaction was not admitted when it began with a token in force (stale, never issued). */
    private FencingRefusedException refusedAtStart;
    /** MariaDB/MySQL: a transaction start was refused and rolled back; nothing is admitted until the caller ends it. */
    private boolean demoted;
    /**
     * Under the session fence: the session is registered, but the token in force is not the registered one, so its
     * work is kept read-only until that token is in force again.
     */
    private boolean registrationSuspended;
    /** Whether the transaction-control statement being sent came before any query of its transaction. */
    private boolean freshBeforeControl;

    Admission(Connection raw, Dialect dialect, ReadOnlySql sql, SessionProbe probe, EpochGuard guard) {
        this.raw = raw;
        this.dialect = dialect;
        this.sql = sql;
        this.probe = probe;
        this.guard = guard;
        Object pg = null;
        Method status = null;
        if (sql != null && dialect == Dialect.POSTGRESQL) {
            try {
                Class<?> type = Class.forName("org.postgresql.PGConnection", false, raw.getClass().getClassLoader());
                if (raw.isWrapperFor(type)) {
                    pg = raw.unwrap(type);
                    status = type.getMethod("getParameterStatus", String.class);
                }
            } catch (ReflectiveOperationException | SQLException | LinkageError notPgjdbc) {
                pg = null;
            }
        }
        this.reporter = pg;
        this.reported = status;
    }

    /**
     * Makes a freshly opened session read-only and checks with the server that it is: PostgreSQL must report
     * {@code default_transaction_read_only} on, also as the value a reset returns to (the driver passes it as a
     * startup option to pgjdbc); MariaDB/MySQL gets {@code SET SESSION TRANSACTION READ ONLY}. A session that is not
     * read-only is refused ({@code ZF006}): nothing would stop a write the driver misreads.
     */
    public static void start(Connection raw, ReadOnlySql sql, Dialect dialect) throws SQLException {
        if (sql == null) {
            return;
        }
        try (Statement statement = raw.createStatement()) {
            if (dialect == Dialect.MARIADB) {
                statement.execute(sql.readOnlySession());
            }
            try (ResultSet rs = statement.executeQuery(sql.readOnlyCheck())) {
                if (!rs.next() || !on(rs.getString(1)) || !on(rs.getString(2))) {
                    throw Settings.configuration("the session is not read-only by default on the server, so a write"
                            + " the driver misreads would not be stopped: "
                            + (dialect == Dialect.POSTGRESQL ? "connect with pgjdbc (jdbc:fencing:postgresql:), which"
                            + " the driver starts with '" + ReadOnlySql.POSTGRES_STARTUP_OPTION + "'"
                            : "the server did not keep SET SESSION TRANSACTION READ ONLY"));
                }
            }
        }
    }

    private static boolean on(String value) {
        return "on".equalsIgnoreCase(value) || "1".equals(value);
    }

    /**
     * Runs {@code work} (the fence's own DDL at connect, {@code fencing.schema=create}) in a session made read-write
     * for it, and read-only again afterwards whatever happened.
     */
    public static <T> T readWrite(Connection raw, ReadOnlySql sql, Dialect dialect, Work<T> work)
            throws SQLException {
        if (sql == null || dialect != Dialect.POSTGRESQL) {
            return work.run();
        }
        try (Statement statement = raw.createStatement()) {
            statement.execute(sql.readWriteSession());
            try {
                return work.run();
            } finally {
                if (!raw.getAutoCommit()) {
                    raw.rollback();
                }
                statement.execute(sql.readOnlySession());
            }
        }
    }

    /** Work on the raw connection: the fence's own DDL at connect, or a statement run read-write. */
    public interface Work<T> {
        T run() throws SQLException;
    }

    /**
     * Runs a guarded statement that MariaDB/MySQL commits around on its own (DDL, {@code LOCK TABLES ... WRITE}): the
     * server runs it outside the guard's read-write transaction, so the session is read-write for exactly this
     * statement and read-only again right after it (the guard's check before it is not atomic with it: a documented
     * limit of DDL on these servers). A session that cannot be set back is closed.
     */
    public <T> T readWriteSessionFor(boolean endsTransaction, Work<T> work) throws SQLException {
        if (sql == null || dialect != Dialect.MARIADB || !endsTransaction) {
            return work.run();
        }
        control().execute(sql.readWriteSession());
        try {
            return work.run();
        } finally {
            try {
                control().execute(sessionDefault());
            } catch (SQLException notReadOnly) {
                raw.close();
                throw notReadOnly;
            }
        }
    }

    /**
     * Whether the next statement runs in the caller's transaction (one the server has open, or auto-commit off):
     * admitted under the guard's lock before its first query, or kept read-only by the server; a write the driver
     * lets through without a guard then lifts nothing.
     */
    public boolean inCallersTransaction() throws SQLException {
        return !raw.getAutoCommit() || probe.inServerTransaction();
    }

    /** Whether the server enforces read-only mode for this connection's un-admitted work. */
    public boolean enforced() {
        return sql != null;
    }

    /** The statement the guard's own text sends first, making its transaction read-write; {@code null} if none. */
    public String readWriteLead() {
        return sql == null || dialect != Dialect.POSTGRESQL ? null : sql.readWriteTransaction();
    }

    /** {@code Connection.setReadOnly}: kept here, never sent (the server's mode is the fence's). */
    public void setCallerReadOnly(boolean readOnly) {
        callerReadOnly = readOnly;
        sessionReadOnlyByCaller &= readOnly;
    }

    /**
     * Whether the caller asked for read-only work now ({@code setReadOnly(true)}, {@code BEGIN ... READ ONLY},
     * {@code SET TRANSACTION READ ONLY}, {@code SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY}): the fence then
     * opens no read-write transaction, so the server refuses the caller's writes as the underlying driver's would.
     */
    public boolean callerAskedReadOnly() {
        return sql != null && (callerReadOnly || transactionReadOnlyByCaller || sessionReadOnlyByCaller);
    }

    public boolean callerReadOnly() {
        return callerReadOnly;
    }

    /**
     * Before a caller's statement that may run a query (any statement but transaction control, and a savepoint,
     * inside which a PostgreSQL transaction can no longer become read-write): restores the session's read-only
     * default where the server reports it lifted (PostgreSQL reports {@code default_transaction_read_only} with
     * every change, so a {@code set_config} in some function is seen before the next statement), and admits a
     * transaction that starts with this statement, or was opened by a {@code BEGIN} no query ran in yet, when a
     * token is in force.
     */
    public void beforeStatement(TokenResolver tokens) throws SQLException {
        if (sql == null) {
            return;
        }
        restoreSessionMode();
        // Under the session fence a session with a token registers first (when idle): a registered session is
        // read-write as a whole, and the hand-over ends it; only an unregistered one admits transactions.
        guard.registerForRead(tokens);
        if (guard.registeredAnywhere()) {
            // The registration covers work at its own token only: other work is read-only on the server (found by
            // review: after a pool's clean-up cleared the token, a read of a writing view wrote).
            boolean covers = guard.registrationCovers(tokens);
            if (covers == registrationSuspended) {
                registrationSuspended = !covers;
                if (dialect == Dialect.MARIADB) {
                    switchMariaDbRegistration();
                    return;
                }
                restoreSessionMode();
                if (registrationSuspended && probe.inServerTransaction()) {
                    // an open transaction (BEGIN sent as SQL too) is made read-only for the rest of it (review)
                    control().execute(sql.readOnlyTransaction());
                }
            }
            return;
        }
        boolean fresh = !demoted && probe.transactionStartsWithNextStatement();
        if (!fresh && !pending) {
            return;
        }
        pending = false;
        if (fresh) {
            admitted = false;
            refusedAtStart = null;
            transactionReadOnlyByCaller = false;
        }
        if (!callerAskedReadOnly()) {
            admit(tokens, false);
        }
    }

    /**
     * Before a caller's transaction-control statement: a savepoint is admitted like a first statement; MariaDB/MySQL
     * makes the transaction a {@code BEGIN} opens read-write ahead of it when a token is in force (its access mode
     * cannot change once it is open); a {@code SET TRANSACTION READ WRITE} in a transaction that is open and was not
     * admitted is refused (the server would refuse it too, after a query).
     */
    public void beforeTransactionControl(TransactionControl control, int statements, TokenResolver tokens)
            throws SQLException {
        if (sql == null) {
            return;
        }
        if (control == TransactionControl.SAVEPOINT) {
            beforeStatement(tokens);
            return;
        }
        restoreSessionMode();
        readWriteAhead = false;
        freshBeforeControl = pending || probe.transactionStartsWithNextStatement();
        if (control == TransactionControl.SET_TRANSACTION_READ_WRITE && !freshBeforeControl) {
            requireAdmittedTransaction(tokens);
        }
        if (dialect == Dialect.MARIADB && control == TransactionControl.BEGIN && statements == 1 && !callerReadOnly
                && !guard.registeredAnywhere() && findToken(tokens) > 0) {
            control().execute(sql.readWriteTransaction());
            readWriteAhead = true;
        }
    }

    /**
     * After a caller's transaction-control statement: a transaction it opened waits for admission at its first query
     * (PostgreSQL: {@code SET TRANSACTION ISOLATION LEVEL} may still follow the {@code BEGIN}); one opened read-write
     * is admitted at once (a {@code BEGIN ... READ WRITE}, {@code SET TRANSACTION READ WRITE}, or MariaDB's
     * {@code BEGIN} made read-write ahead), and refused when its token is not current: the transaction is left
     * read-only (PostgreSQL) or rolled back (MariaDB/MySQL). One that ended is forgotten.
     */
    public void afterTransactionControl(TransactionControl control, TokenResolver tokens) throws SQLException {
        if (control == TransactionControl.COMMIT) {
            guard.committed();
        } else if (control == TransactionControl.ROLLBACK || control == TransactionControl.ROLLBACK_TO_SAVEPOINT) {
            guard.rolledBack();
        }
        if (sql == null) {
            return;
        }
        boolean ahead = readWriteAhead;
        boolean fresh = freshBeforeControl;
        readWriteAhead = false;
        freshBeforeControl = false;
        if (control == TransactionControl.COMMIT || control == TransactionControl.ROLLBACK) {
            ended();
            return;
        }
        boolean open = probe.inServerTransaction();
        if (ahead && !open) {
            control().execute(sql.readOnlyTransaction()); // the BEGIN failed: the next transaction is read-only
            return;
        }
        if (control.begins()) {
            admitted = false;
            refusedAtStart = null;
            pending = false;
            transactionReadOnlyByCaller = control == TransactionControl.BEGIN_READ_ONLY;
        } else if (control == TransactionControl.SET_TRANSACTION_READ_ONLY) {
            transactionReadOnlyByCaller = true;
            pending = false;
            return;
        } else if (control == TransactionControl.SET_SESSION_READ_ONLY) {
            sessionReadOnlyByCaller = true;
            return;
        } else if (!(control == TransactionControl.SET_TRANSACTION || control.liftsReadOnly()) || !fresh) {
            return;
        }
        if (!open || guard.registeredAnywhere() || callerAskedReadOnly()) {
            return;
        }
        if (ahead || control.liftsReadOnly()) {
            pending = false;
            admit(tokens, true);
        } else {
            pending = true;
        }
    }

    private static long findToken(TokenResolver tokens) {
        try {
            return tokens.find(tokens.resource());
        } catch (SQLException invalid) {
            return 0; // an invalid token admits nothing; the statements that need one refuse it
        }
    }

    /**
     * Admits the transaction that is starting: read-write, then the epoch-row lock at the token in force (raising a
     * mark below it). A token that is not current (stale, never issued) leaves the transaction read-only:
     * PostgreSQL turns it back with {@code SET TRANSACTION READ ONLY}; MariaDB/MySQL rolls back what only the lock
     * opened. {@code refuse}: the caller asked for read-write itself, so the refusal is thrown too.
     */
    private void admit(TokenResolver tokens, boolean refuse) throws SQLException {
        String resource = tokens.resource();
        boolean postgres = dialect == Dialect.POSTGRESQL;
        // A token kept by the server (SET LOCAL fencing.token) is read with a query, after which a PostgreSQL
        // transaction can no longer become read-write: lift first, and turn back when there is no token.
        boolean liftFirst = postgres && tokens.asksServer();
        if (liftFirst) {
            control().execute(sql.readWriteTransaction());
        }
        long token = refuse ? tokens.token(resource) : findToken(tokens);
        if (token <= 0) {
            if (liftFirst) {
                control().execute(sql.readOnlyTransaction());
            }
            return;
        }
        if (!postgres && !probe.inServerTransaction()) {
            control().execute(sql.readWriteTransaction()); // MariaDB/MySQL: the transaction the lock opens
        }
        try {
            guard.admit(resource, token, postgres && !liftFirst ? sql.readWriteTransaction() : null);
            admitted = true;
        } catch (SQLException notAdmitted) {
            refusedAtStart = notAdmitted instanceof FencingRefusedException refusal ? refusal : null;
            try {
                // MariaDB/MySQL cannot turn a transaction read-only once open: the one the lock opened holds nothing
                // of the caller's and is rolled back; the next statement opens a read-only one, which is not
                // admitted again until the caller ends its transaction.
                control().execute(postgres ? sql.readOnlyTransaction() : "ROLLBACK");
            } catch (SQLException demoteFailure) {
                notAdmitted.addSuppressed(demoteFailure);
                throw notAdmitted;
            }
            demoted = !postgres;
            if (refuse || !(notAdmitted instanceof FencingRefusedException)) {
                throw notAdmitted;
            }
        }
    }

    /** The refusal of a transaction's start, raised again for a later statement of it. */
    private static FencingRefusedException again(FencingRefusedException start) {
        return new FencingRefusedException(start.getMessage() + " (when this transaction began; roll it back)",
                start.getReason(), start.getSQLState(), start.getResource(), start.getToken(),
                start.getHighWaterMark());
    }

    /**
     * Before {@code SET LOCAL fencing.token} (PostgreSQL): it is a query, so a transaction that starts with it, or that
     * no query ran in yet, is made read-write first and admitted at the new token right after; whether it was.
     */
    public boolean beforeLocalToken() throws SQLException {
        if (sql == null || guard.registeredAnywhere() || callerReadOnly || transactionReadOnlyByCaller
                || !(pending || probe.transactionStartsWithNextStatement())) {
            return false;
        }
        control().execute(sql.readWriteTransaction());
        return true;
    }

    /** See {@link #beforeLocalToken()}; {@code lifted} is what it returned. */
    public void afterLocalToken(boolean lifted, TokenResolver tokens) throws SQLException {
        if (!lifted) {
            return;
        }
        pending = false;
        admitted = false;
        refusedAtStart = null;
        admit(tokens, false);
    }

    /**
     * Around a session setting ({@code SET search_path}, {@code SHOW}, ...): it runs no query, so it admits nothing;
     * on PostgreSQL the transaction that auto-commit off opens with it waits for admission at its first query.
     */
    public boolean beforeSessionSetting() throws SQLException {
        return sql != null && (pending || probe.transactionStartsWithNextStatement());
    }

    /** See {@link #beforeSessionSetting()}; {@code fresh} is what it returned. */
    public void afterSessionSetting(boolean fresh) throws SQLException {
        if (fresh && dialect == Dialect.POSTGRESQL && probe.inServerTransaction() && !admitted) {
            pending = true;
        }
    }

    /**
     * Before a mutation: refuses one in a transaction that is open on the server and was not admitted (it began
     * without a current token, so the server would refuse the write, or the guard's lock, as read-only).
     */
    public void requireAdmittedTransaction(TokenResolver tokens) throws SQLException {
        if (sql == null || admitted || pending || guard.registeredAnywhere() || !probe.inServerTransaction()) {
            return;
        }
        if (callerReadOnly || transactionReadOnlyByCaller) {
            return; // the caller asked for read-only: the server's own refusal is the caller's answer
        }
        FencingRefusedException stale = staleReason(tokens);
        throw stale != null ? stale : Refusals.transactionNotAdmitted(tokens.resource());
    }

    /**
     * Why work is not admitted when the reason is a stale token: the refusal of the transaction's start, or the token
     * in force below the mark (read without a lock); {@code null} when the token is not stale or there is none.
     */
    private FencingRefusedException staleReason(TokenResolver tokens) throws SQLException {
        if (refusedAtStart != null) {
            return again(refusedAtStart);
        }
        String resource = tokens.resource();
        long token = findToken(tokens);
        if (token > 0) {
            long mark = guard.readMark(resource);
            if (mark > token) {
                return Refusals.stale(resource, token, mark);
            }
        }
        return null;
    }

    /**
     * A caller's statement failed: when the server refused a write as read-only in work no token admitted, the
     * refusal says so with the fence's SQLState (the server's error as its cause); otherwise {@code failure} as it is.
     */
    public SQLException explain(SQLException failure, TokenResolver tokens) {
        if (sql == null || !SqlStates.READ_ONLY_TRANSACTION.equals(failure.getSQLState()) || callerAskedReadOnly()
                || guard.registeredAnywhere()) {
            return failure;
        }
        try {
            FencingRefusedException stale = staleReason(tokens);
            if (stale != null) {
                stale.initCause(failure);
                return stale;
            }
        } catch (SQLException markUnknown) {
            failure.addSuppressed(markUnknown);
        }
        return Refusals.refusedByReadOnlyServer(tokens.resource(), failure);
    }

    /** The caller's transaction ended ({@code commit}, {@code rollback}, auto-commit back on, or by SQL). */
    public void ended() {
        demoted = false;
        admitted = false;
        refusedAtStart = null;
        pending = false;
        transactionReadOnlyByCaller = false;
    }

    /**
     * MariaDB/MySQL: after a guarded statement that called a stored function (which may {@code SET SESSION
     * tx_read_only = 0}, unseen by the client), the session's read-only default is set again.
     */
    public void afterFunctionCall() throws SQLException {
        if (sql != null && dialect == Dialect.MARIADB) {
            control().execute(sessionDefault());
        }
    }

    /**
     * After a caller's statement (or batch, or commit) that failed: the underlying driver's view of the transaction
     * is not confirmed by the server's reply, so the next question about it asks the server
     * ({@link SessionProbe#afterFailure()}).
     */
    public void afterFailure() {
        probe.afterFailure();
    }

    /** The warning count of the last reply, as the underlying driver keeps it ({@link SessionProbe#warningCount()}). */
    public int warningCount() {
        return probe.warningCount();
    }

    /**
     * After statements of the driver's own that followed a caller's statement with {@code count} warnings: the
     * underlying driver's count set back, so that its {@code getWarnings()} asks the server for the caller's
     * statement's warnings ({@link SessionProbe#restoreWarningCount(int)}).
     */
    public void restoreWarningCount(int count) {
        probe.restoreWarningCount(count);
    }

    /**
     * After a caller's statement that succeeded: the session's read-only default set back at once where the server
     * reports it changed (a {@code set_config} in a function), so that no transaction opened next, by whatever path
     * (a metadata call, a {@code COMMIT} and the next statement), starts read-write (found by review).
     */
    public void afterStatement() throws SQLException {
        if (sql != null) {
            restoreSessionMode();
        }
    }

    /**
     * PostgreSQL: where the server reported its {@code default_transaction_read_only} changed, sets it back: off for
     * a session the session fence registered, on for any other. With auto-commit off and no transaction open, it is
     * set outside the caller's next transaction (which pgjdbc would open with it); inside a transaction not admitted,
     * that transaction is made read-only too, in case it was opened read-write.
     */
    private void restoreSessionMode() throws SQLException {
        if (reporter == null) {
            return;
        }
        String value;
        try {
            value = (String) reported.invoke(reporter, ReadOnlySql.POSTGRES_REPORTED_SETTING);
        } catch (ReflectiveOperationException e) {
            throw new SQLException("fencing: cannot read the server's reported read-only mode", e);
        }
        boolean registered = guard.registeredAnywhere() && !registrationSuspended;
        if (value == null || on(value) != registered) {
            return;
        }
        if (registered) {
            control().execute(sql.readWriteSession());
            return;
        }
        if (probe.transactionStartsWithNextStatement()) {
            raw.setAutoCommit(true);
            try {
                control().execute(sql.readOnlySession());
            } finally {
                raw.setAutoCommit(false);
            }
            return;
        }
        control().execute(sql.readOnlySession());
        if (!admitted && probe.inServerTransaction()) {
            control().execute(sql.readOnlyTransaction());
        }
    }

    /**
     * MariaDB/MySQL, a registered session whose token in force stopped or started being the registered one: the
     * session's default access mode follows ({@code SET SESSION TRANSACTION READ ONLY / READ WRITE}). A transaction
     * open at the change began read-write, and MariaDB cannot make an open transaction read-only: it is rolled back
     * and the statement refused, since what the driver takes for a read in it could write without a current token.
     */
    private void switchMariaDbRegistration() throws SQLException {
        if (registrationSuspended && probe.inServerTransaction()) {
            control().execute(sql.readOnlySession());
            control().execute("ROLLBACK");
            guard.rolledBack();
            ended();
            throw Refusals.cannotGuard("this session is registered (" + dev.fencing.jdbc.FencingProperty.GUARD.getName()
                    + "=session) at a token that is no longer the one in force, inside a read-write transaction that"
                    + " cannot be made read-only: the transaction was rolled back");
        }
        control().execute(registrationSuspended ? sql.readOnlySession() : sql.readWriteSession());
    }

    /** What a session's default access mode should be now: read-write only while a registration covers its work. */
    private String sessionDefault() {
        return guard.registeredAnywhere() && !registrationSuspended ? sql.readWriteSession() : sql.readOnlySession();
    }

    /** A registered session's default becomes read-write (the session fence admits the whole session). */
    void sessionRegistered() throws SQLException {
        if (sql != null) {
            control().execute(sql.readWriteSession());
        }
    }

    private Statement control() throws SQLException {
        if (control == null) {
            control = raw.createStatement();
        }
        return control;
    }
}
