package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.audit.FenceMetrics;
import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.jdbc.config.TokenResolver;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.sql.EpochSql;
import dev.fencing.sql.ReadOnlySql;
import dev.fencing.sql.SessionFenceSql;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * The guard protocol of one connection: runs a mutation so that the epoch check and the write commit or roll
 * back together (SPEC C2, C3, C4), on the strength of what the server says, never of a lock the driver believes
 * it holds (C9).
 *
 * <p>The rule: every mutation is sent with its own guard, in the same transaction, with nothing of the caller's
 * in between. Where the database runs two statements in one round trip (PostgreSQL), the guard statement travels
 * ahead of the caller's untouched text and fails loudly when the token is not current, so the text never runs and
 * its triggers never fire. Elsewhere, and for texts that may end their transaction themselves (a procedure that
 * commits), the epoch row is locked by a separate statement first, inside a transaction: the caller's when the
 * server reports one, otherwise one the driver opens and commits around the statement. Taking the lock again in
 * a transaction that already holds it costs one index lookup.
 *
 * <p>The only thing remembered is which marks this connection has seen committed. It decides no safety question:
 * it only lets a caller's transaction skip the separate locking read before a guarded text (which would abort
 * that transaction on a new epoch instead of advancing the mark).
 */
public final class EpochGuard {
    /** One statement execution as the guard drives it. */
    public interface Call<T> {
        /**
         * Runs the caller's text with the guard statement ahead of it in the same text, {@code nonce} as the guard's
         * last parameter; the guard's failure comes back as the {@link SQLException} the database raised, carrying
         * the nonce (see {@link GuardFailure}). Only called when the statement was declared {@code prefixable}.
         */
        T withGuard(String resource, long token, long nonce) throws SQLException;

        /** Runs the caller's statement as the underlying driver would, untouched. */
        T untouched() throws SQLException;
    }

    private final Connection raw;
    private final EpochSql sql;
    private final IssuerCheck issuerCheck;
    private final SessionProbe probe;
    private final ReadOnlySql readOnly;
    private final Admission admission;
    /** The session fence ({@code fencing.guard=session}), or {@code null} when every mutation carries its guard. */
    private final SessionFence sessions;
    /** Draws each prefix guard's nonce: unpredictable, so no caller's error can carry the one a send is waiting for. */
    private final SecureRandom nonces = new SecureRandom();
    /** Marks this connection saw committed, per resource; only chooses the form of the guard. */
    private final Map<String, Long> committedMarks = new HashMap<>(4);
    /** Marks the current transaction has locked at, per resource: committed marks once it commits. */
    private final Map<String, Long> pendingMarks = new HashMap<>(4);
    private PreparedStatement lockAtLeast;
    /** {@link EpochSql#lockMark()} behind PostgreSQL's {@code SET TRANSACTION READ WRITE}, resource as a literal. */
    private dev.fencing.sql.GuardedSql lockMarkAfterLead;
    private PreparedStatement advance;
    private Statement transactionControl;
    /**
     * MariaDB/MySQL: a statement that takes table locks ran since the server last showed the session holds none
     * ({@link #requireNoTableLocks}). Only decides whether to ask; the server's answer decides.
     */
    private boolean tableLocksMayBeHeld;
    /** The statement being run takes table locks itself, releasing any held before (so nothing is asked). */
    private boolean statementTakesTableLocks;

    /** {@code issuerCheck} is {@code null} when never-issued tokens are not checked ({@code fencing.issuer.check=off}). */
    /**
     * @param readOnly the read-only mode the server keeps for un-admitted work, or {@code null} where none is
     *                 enforced (audit mode, H2)
     */
    public EpochGuard(Connection raw, EpochSql sql, IssuerCheck issuerCheck, SessionFenceSql sessionFence,
                      ReadOnlySql readOnly) {
        this.raw = raw;
        this.sql = sql;
        this.issuerCheck = issuerCheck;
        this.readOnly = readOnly;
        this.probe = SessionProbe.of(raw, sql.dialect());
        this.admission = new Admission(raw, sql.dialect(), readOnly, probe, this);
        this.sessions = sessionFence == null ? null : new SessionFence(raw, sessionFence, probe, readOnly, admission);
    }

    /** What keeps this connection's un-admitted work read-only on the server. */
    public Admission admission() {
        return admission;
    }

    /** Whether the session fence registered this session for some resource (its session is read-write). */
    boolean registeredAnywhere() {
        return sessions != null && sessions.registeredAnywhere();
    }

    /**
     * Under the session fence: whether the token in force is the one this session is registered at for the resource
     * in force. When it is not (no token, another token or resource, a scope that ended, a pool's clean-up), the
     * registration does not cover the work, which is then kept read-only on the server like any un-admitted work.
     */
    boolean registrationCovers(TokenResolver tokens) {
        if (sessions == null) {
            return false;
        }
        try {
            String resource = tokens.resource();
            Long registered = sessions.registeredToken(resource);
            return registered != null && registered == tokens.find(resource);
        } catch (SQLException invalid) {
            return false;
        }
    }

    public EpochSql sql() {
        return sql;
    }

    /**
     * Runs {@code call} fenced for {@code resource} at {@code token}; refuses a stale token with nothing changed.
     *
     * @param prefixable whether the call can send the guard ahead of its text ({@link Call#withGuard})
     * @param repeatable whether the call can be sent a second time after its guard failed (no stream parameters)
     */
    public <T> T run(String resource, long token, boolean prefixable, boolean repeatable, Call<T> call) throws SQLException {
        if (sessions != null && sessionCovers(resource, token)) {
            return call.untouched();
        }
        // A caller that asked for read-only work gets no read-write transaction: the server refuses its write.
        prefixable &= !admission.callerAskedReadOnly();
        if (!probe.inTransaction()) {
            if (prefixable && repeatable) {
                long nonce = nonce();
                try {
                    T result = call.withGuard(resource, token, nonce);
                    committedMarks.put(resource, token);
                    return result;
                } catch (SQLException e) {
                    GuardFailure failure = GuardFailure.of(e, nonce);
                    if (failure == null) {
                        throw e;
                    }
                    if (failure.stale()) {
                        throw stale(resource, token, failure.mark());
                    }
                    // The mark is below the token: advance it in a transaction of the driver's, then run once.
                }
            }
            return inDriverTransaction(resource, token, prefixable, call);
        }
        if (!prefixable) {
            lock(resource, token);
            if (!probe.inTransaction()) {
                throw Refusals.cannotGuard("the transaction ended while the epoch row was being locked, so the"
                        + " statement was not sent");
            }
            return call.untouched();
        }
        if (!knownCurrent(resource, token) && !Long.valueOf(token).equals(pendingMarks.get(resource))) {
            // Advance (or check) without failing, so a new epoch does not abort the caller's transaction. Not again
            // in a transaction that locked at this token already (its admission): the guard ahead checks anyway.
            lock(resource, token);
        }
        long nonce = nonce();
        try {
            T result = call.withGuard(resource, token, nonce);
            pendingMarks.put(resource, token);
            return result;
        } catch (SQLException e) {
            GuardFailure failure = GuardFailure.of(e, nonce);
            if (failure == null) {
                throw e;
            }
            committedMarks.remove(resource);
            pendingMarks.remove(resource);
            if (failure.stale()) {
                throw stale(resource, token, failure.mark());
            }
            throw Refusals.behind(resource, token);
        }
    }

    /**
     * Whether the session fence covers a mutation at {@code token}: this session is registered at it (or registers
     * now, when the server has no transaction open). A session registered at a lower token cannot move to a
     * newer one (the database would refuse its raise of the mark): the connection is closed, so a pool replaces it.
     * A session registered at a higher token falls through to the statement guard, which refuses the stale token.
     */
    private boolean sessionCovers(String resource, long token) throws SQLException {
        Long held = sessions.registeredToken(resource);
        if (held == null && sessions.registerIfIdle(resource, token) == SessionFence.Outcome.REGISTERED) {
            held = token;
        }
        if (held == null || held > token) {
            return false;
        }
        if (held == token) {
            return true;
        }
        try {
            raw.close();
        } catch (SQLException ignored) {
            // closing is what matters; the refusal below says why
        }
        throw Refusals.closedForNewToken(resource, held, token);
    }

    /** Under the session fence: registers for the token in force, if there is one, before a statement that reads. */
    public void registerForRead(TokenResolver tokens) {
        if (sessions == null) {
            return;
        }
        try {
            String resource = tokens.resource();
            if (sessions.registeredToken(resource) != null) {
                return; // registered at some token: a read needs nothing more
            }
            sessions.registerForRead(resource, tokens.token(resource));
        } catch (SQLException noTokenOrNoRegistration) {
            // a read needs neither: its writes will be guarded statement by statement, or register later
        }
    }

    /**
     * Runs {@code call} in a transaction of the driver's, committed when it succeeds. Where the server's status
     * flags say whether a transaction is open (MariaDB Connector/J, MySQL Connector/J), it is opened with
     * {@code START TRANSACTION} and ended with {@code COMMIT AND NO CHAIN NO RELEASE} sent as SQL (whatever the
     * session's {@code completion_type}), auto-commit left on: two round trips
     * instead of the three of {@code setAutoCommit(false)}, {@code commit()} and {@code setAutoCommit(true)}; the
     * flags, not the driver's belief, say the transaction is open before the lock is taken.
     */
    private <T> T inDriverTransaction(String resource, long token, boolean prefixable, Call<T> call)
            throws SQLException {
        if (tableLocksMayBeHeld && !statementTakesTableLocks) {
            requireNoTableLocks();
        }
        boolean bySql = probe.followsSqlTransactions();
        if (bySql) {
            transactionControl().execute(readOnly != null && !admission.callerAskedReadOnly()
                    ? readOnly.startReadWrite() : "START TRANSACTION");
            if (!probe.inTransaction()) {
                throw Refusals.cannotGuard("the server reported no transaction after START TRANSACTION, so the"
                        + " statement was not sent");
            }
        } else {
            raw.setAutoCommit(false);
        }
        try {
            if (!bySql && readOnly != null && !admission.callerAskedReadOnly()) {
                transactionControl().execute(readOnly.readWriteTransaction());
            }
            if (resource != null) {
                lock(resource, token);
            }
            T result = prefixable ? call.withGuard(resource, token, nonce()) : call.untouched();
            if (bySql) {
                int warnings = probe.warningCount();
                transactionControl().execute("COMMIT AND NO CHAIN NO RELEASE");
                probe.restoreWarningCount(warnings);
            } else {
                raw.commit();
            }
            if (resource != null) {
                committedMarks.put(resource, token);
            }
            return result;
        } catch (SQLException | RuntimeException | Error failure) {
            try {
                if (bySql) {
                    transactionControl().execute("ROLLBACK AND NO CHAIN NO RELEASE");
                } else {
                    raw.rollback();
                }
            } catch (SQLException rollbackFailure) {
                failure.addSuppressed(rollbackFailure);
            }
            throw failure;
        } finally {
            pendingMarks.clear();
            if (!bySql) {
                raw.setAutoCommit(true);
            }
        }
    }

    /**
     * Runs {@code call} untouched in a read-write transaction of the driver's, without the epoch-row lock: a write
     * that needs no token (an exempt table, the session's temporary tables) sent in auto-commit, where the session
     * is read-only (SPEC C10). Inside a transaction it runs in that transaction, read-only unless admitted.
     */
    public <T> T readWrite(Call<T> call) throws SQLException {
        if (readOnly == null || probe.inTransaction() || admission.callerAskedReadOnly()) {
            return call.untouched();
        }
        return inDriverTransaction(null, 0, false, call);
    }

    /**
     * Around a caller's statement: whether it takes table locks ({@code LOCK TABLES}; see
     * {@link dev.fencing.sql.Analysis#takesTableLocks()}). After it, whatever its outcome, the session may hold table
     * locks until the server shows otherwise.
     */
    public void statementTakesTableLocks(boolean takes) {
        statementTakesTableLocks = takes;
        tableLocksMayBeHeld |= takes;
    }

    /**
     * Before the driver opens a transaction of its own on MariaDB/MySQL after a {@code LOCK TABLES}: asks the server
     * whether the session still holds table locks, by reading the epoch table, which no {@code LOCK TABLES} through
     * the fence can name: under table locks the server refuses it (1100, "was not locked with LOCK TABLES"). Then
     * the write is refused ({@link Refusals#tableLocksHeld()}) rather than run after a {@code START TRANSACTION}
     * that would release the caller's locks (issue 23: a {@code TRUNCATE} of a table locked {@code READ} ran).
     */
    private void requireNoTableLocks() throws SQLException {
        try (Statement s = raw.createStatement();
             ResultSet rs = s.executeQuery("SELECT 1 FROM " + sql.table() + " LIMIT 0")) {
            rs.next();
        } catch (SQLException e) {
            throw tableLocksHeldOr(e);
        }
        tableLocksMayBeHeld = false;
    }

    /** {@code e} as the refusal of a write under table locks when the server says so (1100), else {@code e}. */
    private SQLException tableLocksHeldOr(SQLException e) {
        if (sql.dialect() != dev.fencing.sql.Dialect.MARIADB || e.getErrorCode() != ER_TABLE_NOT_LOCKED) {
            return e;
        }
        tableLocksMayBeHeld = true;
        FencingRefusedException refused = Refusals.tableLocksHeld();
        refused.initCause(e);
        return refused;
    }

    /** MariaDB/MySQL's "Table '%s' was not locked with LOCK TABLES". */
    private static final int ER_TABLE_NOT_LOCKED = 1100;

    private Statement transactionControl() throws SQLException {
        if (transactionControl == null) {
            transactionControl = raw.createStatement();
        }
        return transactionControl;
    }

    /** A fresh nonce for one send of the prefix guard: 63 random bits. */
    private long nonce() {
        return nonces.nextLong() & Long.MAX_VALUE;
    }

    private boolean knownCurrent(String resource, long token) {
        Long mark = committedMarks.get(resource);
        return mark != null && mark == token;
    }

    private FencingRefusedException stale(String resource, long token, long mark) {
        if (mark >= 0) {
            committedMarks.put(resource, mark);
        } else {
            committedMarks.remove(resource);
        }
        return Refusals.stale(resource, token, mark);
    }

    /**
     * Takes the epoch-row lock for {@code token} in the current transaction: shared when the mark equals the
     * token, exclusive after raising a lower mark; a higher mark refuses the token as stale. Only a raise asks
     * the issuer check, so a token above the issued mark is refused before it can become the mark.
     */
    void lock(String resource, long token) throws SQLException {
        long started = System.nanoTime();
        try {
            lockUntimed(resource, token);
        } catch (SQLException e) {
            // Inside a caller's transaction (auto-commit off, then LOCK TABLES): the epoch read is what the server refuses.
            throw tableLocksHeldOr(e);
        } finally {
            FenceMetrics.of(resource).epochLocked(System.nanoTime() - started);
        }
    }

    private void lockUntimed(String resource, long token) throws SQLException {
        boolean lockedBefore = knownCurrent(resource, token) || Long.valueOf(token).equals(pendingMarks.get(resource));
        if (sql.readMarkBeforeLocking() && !lockedBefore && readMark(resource) < token) {
            // InnoDB: a shared lock taken by a locking read that found the mark lower would deadlock the advance
            // against another first writer of the epoch (EpochSql#readMarkBeforeLocking); advance straight away.
            if (issuerCheck != null) {
                issuerCheck.verify(resource, token);
            }
            if (advance(resource, token)) {
                pendingMarks.put(resource, token);
                return;
            }
        }
        for (int attempt = 0; attempt < 8; attempt++) {
            PreparedStatement read = lockAtLeastStatement();
            read.setString(1, resource);
            read.setLong(2, token);
            try (ResultSet rs = read.executeQuery()) {
                if (rs.next()) {
                    long mark = rs.getLong(1);
                    if (mark != token) {
                        throw stale(resource, token, mark);
                    }
                    pendingMarks.put(resource, token);
                    return;
                }
            }
            if (issuerCheck != null) {
                issuerCheck.verify(resource, token);
            }
            if (advance(resource, token)) {
                if (sql.dialect() == dev.fencing.sql.Dialect.POSTGRESQL) {
                    // the locking read once more (the row is ours now): it records the checked token for the
                    // enforcement triggers of the statement that follows (EnforceSql), as the prefix guard does
                    continue;
                }
                pendingMarks.put(resource, token);
                return;
            }
        }
        throw Refusals.epochRowRaces(resource);
    }

    /**
     * Admits the current transaction at {@code token} (SPEC C10): holds the epoch row's shared lock at whatever mark
     * is not above the token, so no advance commits while the transaction runs, and leaves raising a lower mark to
     * the transaction's first write; with no row yet, {@link #lock} creates it. A mark above the token is refused
     * as stale (the lock is held anyway until the transaction ends).
     *
     * @param readWriteLead a statement sent ahead of the locking read in the same text (PostgreSQL's {@code SET
     *                      TRANSACTION READ WRITE}, one round trip for both), or {@code null}
     */
    void admit(String resource, long token, String readWriteLead) throws SQLException {
        long mark = lockedMark(resource, readWriteLead);
        if (mark < 0) {
            lock(resource, token); // no row yet: the first acquisition creates it
            return;
        }
        if (mark > token) {
            throw stale(resource, token, mark);
        }
        if (mark == token) {
            pendingMarks.put(resource, token);
        }
    }

    /** The mark under the epoch row's shared lock, -1 without a row; {@code lead} sent ahead in the same text. */
    private long lockedMark(String resource, String lead) throws SQLException {
        if (lead == null) {
            try (PreparedStatement read = raw.prepareStatement(sql.lockMark())) {
                read.setString(1, resource);
                try (ResultSet rs = read.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : -1;
                }
            }
        }
        if (lockMarkAfterLead == null) {
            lockMarkAfterLead = new dev.fencing.sql.GuardedSql(sql.lockMark(),
                    java.util.List.of(dev.fencing.sql.GuardedSql.Marker.RESOURCE)).after(lead);
        }
        try (Statement read = raw.createStatement()) {
            read.execute(lockMarkAfterLead.withLiterals(resource, 0, 0));
            read.getMoreResults();
            try (ResultSet rs = read.getResultSet()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    /**
     * Raises the mark to {@code token}; false when a concurrent first insert won the race and the caller should retry.
     * Where the advance queues on an advisory lock first (PostgreSQL), its waits are bounded ({@link BoundedAdvance}).
     */
    private boolean advance(String resource, long token) throws SQLException {
        if (sql.advanceQueue() != null) {
            return BoundedAdvance.run(raw, sql, resource, token, () -> raise(resource, token));
        }
        return raise(resource, token);
    }

    private boolean raise(String resource, long token) throws SQLException {
        if (sql.advance() != null) {
            PreparedStatement upsert = advanceStatement();
            upsert.setString(1, resource);
            upsert.setLong(2, token);
            if (upsert.executeUpdate() == 1) {
                return true;
            }
            throw Refusals.stale(resource, token, readMark(resource));
        }
        try (PreparedStatement raise = raw.prepareStatement(sql.raise())) {
            raise.setLong(1, token);
            raise.setString(2, resource);
            raise.setLong(3, token);
            if (raise.executeUpdate() == 1) {
                return true;
            }
        }
        try (PreparedStatement insert = raw.prepareStatement(sql.insertFirst())) {
            insert.setString(1, resource);
            insert.setLong(2, token);
            return insert.executeUpdate() == 1;
        } catch (SQLException e) {
            if (e.getSQLState() != null && e.getSQLState().startsWith("23")) {
                return false;
            }
            throw e;
        }
    }

    /** The resource's mark as committed now (0 when it has none), read without a lock. */
    public long readMark(String resource) throws SQLException {
        return EpochAdvance.readMark(raw, sql, resource);
    }

    private PreparedStatement lockAtLeastStatement() throws SQLException {
        if (lockAtLeast == null) {
            lockAtLeast = raw.prepareStatement(sql.lockAtLeast());
        }
        return lockAtLeast;
    }

    private PreparedStatement advanceStatement() throws SQLException {
        if (advance == null) {
            advance = raw.prepareStatement(sql.advance());
        }
        return advance;
    }

    /** The caller's transaction committed: the marks it locked at are committed marks now. */
    public void committed() {
        committedMarks.putAll(pendingMarks);
        pendingMarks.clear();
    }

    /** The caller's transaction rolled back (or part of it did): what it locked at may be undone. */
    public void rolledBack() {
        pendingMarks.clear();
    }

    public void close() {
        closeQuietly(lockAtLeast);
        closeQuietly(advance);
        closeQuietly(transactionControl);
    }

    private static void closeQuietly(Statement statement) {
        if (statement != null) {
            try {
                statement.close();
            } catch (SQLException ignored) {
                // the connection is closing; nothing to report
            }
        }
    }
}
