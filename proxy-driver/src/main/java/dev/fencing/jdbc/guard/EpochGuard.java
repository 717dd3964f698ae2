package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.audit.FenceMetrics;
import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.jdbc.audit.SqlStates;
import dev.fencing.jdbc.config.TokenResolver;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.sql.EpochSql;
import dev.fencing.sql.MariaDbSessionFenceSql;
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
    /** Refuses a resource no one declared before its first mark is made; {@code null} with {@code fencing.resources=any}. */
    private final ResourceMap declared;
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
    /** {@link EpochSql#lockAtLeastAdding()}: a further resource's locking read for the same statement. */
    private PreparedStatement lockAtLeastAdding;
    /**
     * Whether this statement's guard has recorded a resource yet (MariaDB's {@code @fencing_guard}, read by the
     * enforcement triggers): its first locking read starts the record, the others add to it, so the record holds what
     * the guard checked for this statement.
     */
    private boolean recordStarted;
    /** The query timeout of the call the guard runs now, in seconds (0: none), given to each of its statements. */
    private int queryTimeout;
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
     * @param declared what says whether a resource is known before its first mark is made, or {@code null} when any
     *                 valid name may start a resource ({@code fencing.resources=any})
     */
    public EpochGuard(Connection raw, EpochSql sql, IssuerCheck issuerCheck, SessionFenceSql sessionFence,
                      ReadOnlySql readOnly, ResourceMap declared) {
        this(raw, sql, issuerCheck, sessionFence, null, readOnly, declared);
    }

    /**
     * @param mariaDbSessionFence the MariaDB session fence ({@code fencing.guard=session}), or {@code null}; at most
     *                            one of it and {@code sessionFence} is given
     */
    public EpochGuard(Connection raw, EpochSql sql, IssuerCheck issuerCheck, SessionFenceSql sessionFence,
                      MariaDbSessionFenceSql mariaDbSessionFence, ReadOnlySql readOnly, ResourceMap declared) {
        this.raw = raw;
        this.declared = declared;
        this.sql = sql;
        this.issuerCheck = issuerCheck;
        this.readOnly = readOnly;
        this.probe = SessionProbe.of(raw, sql.dialect());
        this.admission = new Admission(raw, sql.dialect(), readOnly, probe, this);
        this.sessions = sessionFence == null && mariaDbSessionFence == null ? null
                : new SessionFence(raw, sessionFence, mariaDbSessionFence, probe, readOnly, admission,
                        () -> queryTimeout);
    }

    /** MariaDB/MySQL: whether the session reads backslashes in strings as plain characters now (see {@link SessionProbe}). */
    public boolean noBackslashEscapes() throws SQLException {
        return probe.noBackslashEscapes();
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

    /** {@link #run(String, long, int, boolean, boolean, Call)} without a query timeout. */
    public <T> T run(String resource, long token, boolean prefixable, boolean repeatable, Call<T> call) throws SQLException {
        return run(resource, token, 0, prefixable, repeatable, call);
    }

    /**
     * Runs {@code call} fenced for {@code resource} at {@code token}; refuses a stale token with nothing changed.
     *
     * @param queryTimeout the caller's query timeout in seconds (0: none): each statement the guard sends for this
     *                     call (its locking read, its advance) is bounded by it, as the caller's own statement is, so a
     *                     guard that waits on the server (an epoch row locked by a hand-over) ends when the caller's
     *                     timeout says, not when the server's lock wait does (found with a fault test on MariaDB)
     * @param prefixable whether the call can send the guard ahead of its text ({@link Call#withGuard})
     * @param repeatable whether the call can be sent a second time after its guard failed (no stream parameters)
     */
    public <T> T run(String resource, long token, int queryTimeout, boolean prefixable, boolean repeatable,
                     Call<T> call) throws SQLException {
        int outer = this.queryTimeout;
        this.queryTimeout = Math.max(0, queryTimeout);
        recordStarted = false;
        try {
            return runTimed(resource, token, prefixable, repeatable, call);
        } finally {
            this.queryTimeout = outer;
        }
    }

    private <T> T runTimed(String resource, long token, boolean prefixable, boolean repeatable, Call<T> call)
            throws SQLException {
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
     * Runs {@code call} untouched, fenced for every resource of {@code marks} at its token (SPEC C11: a statement
     * changing tables of several resources): the epoch rows are locked in the order of the resource names, so two
     * writers taking the same resources never wait on each other in a cycle, in the caller's transaction or in one of
     * the driver's; a session the session fence registered at a resource's token needs no lock for it.
     */
    public <T> T runForAll(java.util.SortedMap<String, Long> marks, int queryTimeout, Call<T> call)
            throws SQLException {
        int outer = this.queryTimeout;
        this.queryTimeout = Math.max(0, queryTimeout);
        recordStarted = false;
        try {
            return runForAllTimed(marks, call);
        } finally {
            this.queryTimeout = outer;
        }
    }

    private <T> T runForAllTimed(java.util.SortedMap<String, Long> marks, Call<T> call) throws SQLException {
        java.util.SortedMap<String, Long> locks = new java.util.TreeMap<>();
        for (Map.Entry<String, Long> mark : marks.entrySet()) {
            if (sessions == null || !sessionCovers(mark.getKey(), mark.getValue())) {
                locks.put(mark.getKey(), mark.getValue());
            }
        }
        if (locks.isEmpty()) {
            return call.untouched();
        }
        if (!probe.inTransaction()) {
            return inDriverTransaction(locks, false, call);
        }
        for (Map.Entry<String, Long> mark : locks.entrySet()) {
            lock(mark.getKey(), mark.getValue());
        }
        if (!probe.inTransaction()) {
            throw Refusals.cannotGuard("the transaction ended while the epoch rows were being locked, so the"
                    + " statement was not sent");
        }
        return call.untouched();
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

    /**
     * Runs {@code work}, one call of the caller's (a statement, a batch, a row change), with the caller's query timeout
     * given to every statement the fence sends for it before the guard runs too: the admission's locking read of the
     * epoch row at the start of a transaction ({@link #admit}) and the session fence's registration. So a transaction
     * whose start waits on a locked epoch row (an epoch change under way) ends when the caller's timeout says, as
     * the guard's own statements do ({@link #run(String, long, int, boolean, boolean, Call)}), not when the server's
     * lock wait does (found with a fault test: PostgreSQL waited for ever, MariaDB for {@code
     * innodb_lock_wait_timeout}).
     *
     * @param queryTimeout the caller's query timeout in seconds (0: none)
     */
    public <T> T withQueryTimeout(int queryTimeout, Admission.Work<T> work) throws SQLException {
        int outer = this.queryTimeout;
        this.queryTimeout = Math.max(0, queryTimeout);
        try {
            return work.run();
        } finally {
            this.queryTimeout = outer;
        }
    }

    /**
     * Under the session fence: registers for the token in force, if there is one, before a statement that reads.
     * Nothing is refused here; only a lost connection is thrown, as it happened (the statement could not run anyway,
     * and the caller must learn why rather than meet a closed connection afterwards).
     */
    public void registerForRead(TokenResolver tokens) throws SQLException {
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
            if (SqlStates.isConnectionFailure(noTokenOrNoRegistration)) {
                throw noTokenOrNoRegistration;
            }
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
        return inDriverTransaction(resource == null ? Map.of() : Map.of(resource, token), prefixable, call);
    }

    /**
     * {@link #inDriverTransaction(String, long, boolean, Call)} for every resource of {@code marks} (none: a write
     * that needs no token), locked in the map's order; {@code prefixable} only with exactly one.
     */
    private <T> T inDriverTransaction(Map<String, Long> marks, boolean prefixable, Call<T> call)
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
        Throwable failed = null;
        try {
            if (!bySql && readOnly != null && !admission.callerAskedReadOnly()) {
                transactionControl().execute(readOnly.readWriteTransaction());
            }
            for (Map.Entry<String, Long> mark : marks.entrySet()) {
                lock(mark.getKey(), mark.getValue());
            }
            T result;
            if (prefixable) {
                Map.Entry<String, Long> only = marks.entrySet().iterator().next();
                result = call.withGuard(only.getKey(), only.getValue(), nonce());
            } else {
                result = call.untouched();
            }
            if (bySql) {
                int warnings = probe.warningCount();
                transactionControl().execute("COMMIT AND NO CHAIN NO RELEASE");
                probe.restoreWarningCount(warnings);
            } else {
                raw.commit();
            }
            committedMarks.putAll(marks);
            return result;
        } catch (SQLException | RuntimeException | Error failure) {
            failed = failure;
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
                AutoCommitRestore.restore(raw, true, failed);
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
        return inDriverTransaction(Map.of(), false, call);
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
        long unlockedMark = sql.readMarkBeforeLocking() && !lockedBefore ? readMark(resource) : Long.MAX_VALUE;
        if (unlockedMark < token) {
            // InnoDB: a shared lock taken by a locking read that found the mark lower would deadlock the advance
            // against another first writer of the epoch (EpochSql#readMarkBeforeLocking); advance straight away.
            beforeAdvance(resource, token);
            boolean advanced = unlockedMark == 0 ? insertFirstOrAdvance(resource, token) : advance(resource, token);
            if (advanced && !sql.lockingReadRecords()) {
                pendingMarks.put(resource, token);
                return;
            }
            // advanced: the locking read below records the token for the enforcement triggers (the row is ours now)
        }
        for (int attempt = 0; attempt < 8; attempt++) {
            PreparedStatement read = timed(recordStarted ? lockAtLeastAddingStatement() : lockAtLeastStatement());
            read.setString(1, resource);
            read.setLong(2, token);
            try (ResultSet rs = read.executeQuery()) {
                if (rs.next()) {
                    long mark = rs.getLong(1);
                    if (mark != token) {
                        throw stale(resource, token, mark);
                    }
                    recordStarted = true;
                    pendingMarks.put(resource, token);
                    return;
                }
            }
            beforeAdvance(resource, token);
            if (advance(resource, token)) {
                if (sql.lockingReadRecords()) {
                    // the locking read once more (the row is ours now): it records the checked token for the
                    // enforcement triggers of the statement that follows (EnforceSql, MariaDbEnforceSql), as
                    // PostgreSQL's prefix guard does
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
        if (sql.readMarkBeforeLocking() && readMark(resource) == 0) {
            // InnoDB, no row yet: a locking read that finds none locks the gap where it would be, to the end of the
            // transaction, and every other new resource's first mark would wait for it; the row is made instead
            if (readWriteLead != null) {
                transactionControl().execute(readWriteLead);
            }
            lock(resource, token);
            return;
        }
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

    /**
     * The mark under the epoch row's shared lock, -1 without a row; {@code lead} sent ahead in the same text. Bounded by
     * the caller's query timeout ({@link #withQueryTimeout}).
     */
    private long lockedMark(String resource, String lead) throws SQLException {
        if (lead == null) {
            try (PreparedStatement read = timed(raw.prepareStatement(sql.lockMark()))) {
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
        try (Statement read = timed(raw.createStatement())) {
            read.execute(lockMarkAfterLead.withLiterals(resource, 0, 0));
            read.getMoreResults();
            try (ResultSet rs = read.getResultSet()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    /**
     * What must hold before a mark is raised or made, in the transaction that does it: the never-issued check (SPEC
     * C7), and a resource known to the database (SPEC C11: declared, mapped, leased or with a mark already).
     */
    private void beforeAdvance(String resource, long token) throws SQLException {
        boolean leased = issuerCheck != null && issuerCheck.verify(resource, token);
        if (declared != null) {
            declared.requireKnown(resource, leased);
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

    /**
     * InnoDB, a resource without a row yet: the row is inserted first, since an {@code UPDATE} that finds no row locks
     * the gap where it would be, to the end of the transaction, and would make the first writers of other new resources
     * wait for this one (found by the resource map's test of two owners). A row inserted meanwhile by another session
     * is raised as usual.
     */
    private boolean insertFirstOrAdvance(String resource, long token) throws SQLException {
        if (sql.advance() != null) {
            return advance(resource, token);
        }
        try (PreparedStatement insert = timed(raw.prepareStatement(sql.insertFirst()))) {
            insert.setString(1, resource);
            insert.setLong(2, token);
            if (insert.executeUpdate() == 1) {
                return true;
            }
        } catch (SQLException e) {
            if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                throw e;
            }
            // Another session made the row first. InnoDB's duplicate check left a shared lock on it, so raising it now
            // would ask for the exclusive lock while holding the shared one: two such first writers deadlocked (the
            // harness, 16 threads on a new resource). The locking read decides instead (false: read, then raise if due).
            return false;
        }
        return advance(resource, token);
    }

    private boolean raise(String resource, long token) throws SQLException {
        if (sql.advance() != null) {
            PreparedStatement upsert = timed(advanceStatement());
            upsert.setString(1, resource);
            upsert.setLong(2, token);
            if (upsert.executeUpdate() == 1) {
                return true;
            }
            throw Refusals.stale(resource, token, readMark(resource));
        }
        if (raiseEndingSessions(resource, token)) {
            return true;
        }
        try (PreparedStatement insert = timed(raw.prepareStatement(sql.insertFirst()))) {
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

    /**
     * The {@code UPDATE} that raises a mark; on MariaDB, when the epoch table's trigger refuses it because a session
     * registered below the new mark is alive (the session fence), those sessions are ended first and the raise runs
     * again ({@link MariaDbHandOver}); whether a row was raised.
     */
    private boolean raiseEndingSessions(String resource, long token) throws SQLException {
        long giveUpAt = System.nanoTime() + RAISE_RETRY_NANOS;
        int noneSeen = 0;
        MariaDbSessionFenceSql fence = null;
        for (int attempt = 1; ; attempt++) {
            try {
                return raiseOnce(resource, token);
            } catch (SQLException refused) {
                // the trigger refused the raise for a live session below it, or its clean-up found one still listed
                // (a session the hand-over ended that the server still lists: found by CI under load, where 20
                // tries in about 2 s were not enough either): end them again and raise again, for a bounded time;
                // a refused raise writes nothing
                if (sql.dialect() != dev.fencing.sql.Dialect.MARIADB || System.nanoTime() - giveUpAt > 0
                        || !MariaDbHandOver.refusedForLiveSession(refused) && !MariaDbHandOver.liveRowKept(refused)) {
                    throw refused;
                }
                // both refusals end what this connection sees registered below and alive (its look is a locking read,
                // so a registration committed after this transaction's snapshot is seen and ended too)
                if (fence == null) {
                    fence = new MariaDbSessionFenceSql(sql.epochTable());
                }
                if (MariaDbHandOver.endSessionsBelow(raw, fence, resource, token, refused) > 0) {
                    noneSeen = 0;
                } else if (MariaDbHandOver.liveRowKept(refused)) {
                    MariaDbHandOver.pause(Math.min(10L * attempt, 100)); // an ended session still listed leaves shortly
                } else if (++noneSeen < NONE_SEEN_ATTEMPTS) {
                    // the session the trigger saw alive was gone when this connection looked (it closed, or another
                    // raise ended it: found by the MariaDB session torture run, where the raise failed here): the
                    // raise's next try, whose trigger looks again, tells
                    MariaDbHandOver.pause(2L * noneSeen);
                } else {
                    throw MariaDbHandOver.noneSeen(refused); // refused again and again, none seen: a privilege
                }
            }
        }
    }

    /**
     * How long a MariaDB raise is tried again after ending the sessions registered below it: as long as the
     * PostgreSQL hand-over waits for the sessions it ended.
     */
    private static final long RAISE_RETRY_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(
            dev.fencing.sql.SessionFenceSql.END_SESSION_TIMEOUT_MS);

    /** How many refusals in a row, each with no such session seen by this connection, end the raise. */
    private static final int NONE_SEEN_ATTEMPTS = 3;

    private boolean raiseOnce(String resource, long token) throws SQLException {
        try (PreparedStatement raise = timed(raw.prepareStatement(sql.raise()))) {
            raise.setLong(1, token);
            raise.setString(2, resource);
            raise.setLong(3, token);
            return raise.executeUpdate() == 1;
        }
    }

    /** The resource's mark as committed now (0 when it has none), read without a lock. */
    public long readMark(String resource) throws SQLException {
        return EpochAdvance.readMark(raw, sql, resource);
    }

    /** {@code statement} with the query timeout of the call the guard runs now. */
    private <S extends Statement> S timed(S statement) throws SQLException {
        statement.setQueryTimeout(queryTimeout);
        return statement;
    }

    private PreparedStatement lockAtLeastStatement() throws SQLException {
        if (lockAtLeast == null) {
            lockAtLeast = raw.prepareStatement(sql.lockAtLeast());
        }
        return lockAtLeast;
    }

    private PreparedStatement lockAtLeastAddingStatement() throws SQLException {
        if (lockAtLeastAdding == null) {
            lockAtLeastAdding = raw.prepareStatement(sql.lockAtLeastAdding());
        }
        return lockAtLeastAdding;
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
        closeQuietly(lockAtLeastAdding);
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
