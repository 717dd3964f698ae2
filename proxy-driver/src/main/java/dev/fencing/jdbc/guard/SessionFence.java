package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.audit.FenceMetrics;
import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.jdbc.audit.SqlStates;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.sql.MariaDbSessionFenceSql;
import dev.fencing.sql.ReadOnlySql;
import dev.fencing.sql.SessionFenceSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The session fence of one PostgreSQL connection ({@code fencing.guard=session}): registers the server session as
 * the holder of a token, in a transaction of its own, so that its later mutations at that token can go to the
 * server untouched, with no per-statement cost (see {@link SessionFenceSql} for the protocol).
 *
 * <p>What it remembers is what the server committed: a registration is only believed after its transaction
 * committed, and the database keeps it for as long as the session lives (its row cannot be deleted while the
 * session is alive, and a raise of the mark above it ends the session before the raise commits). So a belief
 * that outlives its truth would need a dead session, which runs nothing.
 */
final class SessionFence {
    /** How many times one idle point runs a registration that failed for a transient reason. */
    static final int ATTEMPTS = 3;

    /** What a registration attempt found. */
    enum Outcome {
        /** The mark equals the token: the session is registered and its mutations at that token go untouched. */
        REGISTERED,
        /** The mark is below the token (or missing): the statement guard advances it first. */
        BEHIND
    }

    private final Connection raw;
    /** PostgreSQL's SQL, or {@code null} on MariaDB. */
    private final SessionFenceSql sql;
    /** MariaDB's SQL, or {@code null} on PostgreSQL. */
    private final MariaDbSessionFenceSql maria;
    private final SessionProbe probe;
    /** The read-only mode of un-admitted work, or {@code null}: a registration opens the session to writes. */
    private final ReadOnlySql readOnly;
    private final Admission admission;
    /** The query timeout of the caller's call under way, in seconds (0: none). */
    private final java.util.function.IntSupplier queryTimeout;
    /** The token this session is registered at, per resource, as committed on the server. */
    private final Map<String, Long> registered = new HashMap<>(4);
    /** The token a read last found not to be the mark, per resource: a read asks about each token once. */
    private final Map<String, Long> triedForRead = new HashMap<>(4);
    /** Idle points in a row at which a registration failed for a transient reason; 0 after one that did not. */
    private int failures;
    /** When ({@link System#nanoTime()}) the next idle point may try again after such a failure. */
    private long retryAt;

    /**
     * @param queryTimeout the query timeout (seconds, 0: none) of the caller's call under way, which bounds each
     *                     statement of a registration made for it, as it bounds the guard's
     */
    SessionFence(Connection raw, SessionFenceSql sql, MariaDbSessionFenceSql maria, SessionProbe probe,
                 ReadOnlySql readOnly, Admission admission, java.util.function.IntSupplier queryTimeout) {
        this.queryTimeout = queryTimeout;
        this.raw = raw;
        this.sql = sql;
        this.maria = maria;
        this.probe = probe;
        this.readOnly = readOnly;
        this.admission = admission;
    }

    /** Whether this session is registered for some resource: its transactions are then read-write by default. */
    boolean registeredAnywhere() {
        return !registered.isEmpty();
    }

    /** The token this session is registered at for {@code resource}, or {@code null}. */
    Long registeredToken(String resource) {
        return registered.get(resource);
    }

    /**
     * Registers the session at {@code token} when the server has no transaction open on it (so nothing of the
     * caller's can be in the registration's transaction); {@code null} when it has one, or when the registration
     * failed for a transient reason (the statement guard then serves the statement, and a later idle point tries
     * again).
     *
     * <p>The registration runs at READ COMMITTED ({@link SessionFenceSql#REGISTRATION_ISOLATION}), so concurrent
     * registrations of one resource only wait for each other. One that still fails for a transient reason
     * (serialization failure, deadlock: {@link #transientFailure}) is rolled back and run again at once, up to
     * {@link #ATTEMPTS} times; one whose epoch row stayed locked for {@link SessionFenceSql#LOCK_WAIT}'s second (an
     * epoch change under way) is not, it has waited its bound. Given up, the connection says so (a log line at the
     * first failure of a run of them, and {@code SessionFallbacks} in its resource's metrics) and tries again at its
     * next idle point once {@link #retryDelayNanos} has passed, never giving up for its life.
     *
     * @throws dev.fencing.jdbc.FencingRefusedException when the mark is above the token (stale)
     */
    Outcome registerIfIdle(String resource, long token) throws SQLException {
        if (!probe.serverIdle()) {
            return null;
        }
        if (failures > 0 && System.nanoTime() - retryAt < 0) {
            return null; // a transient failure a moment ago: the statement guard serves until the next try
        }
        SQLException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                Outcome outcome = registerOnce(resource, token);
                if (outcome == Outcome.REGISTERED) {
                    FenceMetrics.of(resource).sessionRegistered(token, failures);
                }
                failures = 0;
                return outcome;
            } catch (SQLException failure) {
                if (!transientFailure(failure)) {
                    throw failure;
                }
                last = failure;
                if (waitedItsBound(failure)) {
                    break; // it waited its second for the epoch row: an epoch change is under way, try later
                }
                if (attempt < ATTEMPTS) {
                    pause(attempt);
                }
            }
        }
        failures++;
        long delay = retryDelayNanos(failures);
        retryAt = System.nanoTime() + delay;
        FenceMetrics.of(resource).sessionFellBack(token, last, failures, delay / 1_000_000);
        return null;
    }

    /** A registration's transaction rolled back for a reason that running it again may not meet. */
    static boolean transientFailure(SQLException failure) {
        String state = failure.getSQLState();
        return SqlStates.SERIALIZATION_FAILURE.equals(state) || SqlStates.DEADLOCK.equals(state)
                || SqlStates.LOCK_NOT_AVAILABLE.equals(state) || waitedItsBound(failure);
    }

    /** The registration waited its second for the epoch row (PostgreSQL's 55P03, MariaDB's lock wait timeout). */
    private static boolean waitedItsBound(SQLException failure) {
        return SqlStates.LOCK_NOT_AVAILABLE.equals(failure.getSQLState()) || SqlStates.isMariaDbLockWaitTimeout(failure);
    }

    /**
     * How long after the {@code failures}-th failed idle point in a row the next one tries again: 100 ms, doubling,
     * at most 10 s (a registration that waits a second for a held epoch row at every idle point would slow the
     * caller's reads; the statement guard is safe meanwhile).
     */
    static long retryDelayNanos(int failures) {
        return TimeUnit.MILLISECONDS.toNanos(Math.min(100L << Math.min(failures - 1, 10), 10_000L));
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 5L * attempt + 1));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** One registration in a transaction of its own, committed or rolled back before it returns. */
    private Outcome registerOnce(String resource, long token) throws SQLException {
        if (maria != null) {
            return registerOnceMariaDb(resource, token);
        }
        boolean autoCommit = raw.getAutoCommit();
        if (autoCommit) {
            raw.setAutoCommit(false);
        }
        Throwable failed = null;
        try {
            try (java.sql.Statement start = raw.createStatement()) {
                // READ COMMITTED whatever the caller's default; read-write in a read-only session (SPEC C10)
                start.execute(SessionFenceSql.REGISTRATION_ISOLATION
                        + (readOnly != null ? "; " + readOnly.readWriteTransaction() : ""));
            }
            Outcome outcome = register(resource, token);
            if (outcome == Outcome.REGISTERED) {
                // Registered sessions write untouched: the hand-over ends this session before any newer mark
                // commits. Set in the registration's transaction, so it holds exactly when the registration does.
                admission.sessionRegistered();
                raw.commit();
                registered.put(resource, token);
            } else {
                raw.rollback();
            }
            return outcome;
        } catch (SQLException | RuntimeException | Error failure) {
            failed = failure;
            try {
                raw.rollback();
            } catch (SQLException rollbackFailure) {
                failure.addSuppressed(rollbackFailure);
            }
            throw failure;
        } finally {
            if (autoCommit) {
                AutoCommitRestore.restore(raw, true, failed);
            }
        }
    }

    /**
     * Before a read: registers at {@code token} when not registered and the server is idle. A mark that is not the
     * token is left to the next write (which advances it or is refused): a read asks about each token once. A
     * registration that failed for a transient reason is tried again at a later idle point.
     */
    void registerForRead(String resource, long token) throws SQLException {
        if (registered.containsKey(resource)) {
            return;
        }
        Long tried = triedForRead.get(resource);
        if (tried != null && tried == token) {
            return;
        }
        if (!probe.serverIdle()) {
            return;
        }
        Outcome outcome;
        try {
            outcome = registerIfIdle(resource, token);
        } catch (SQLException refused) {
            triedForRead.put(resource, token);
            throw refused;
        }
        if (outcome == Outcome.BEHIND) {
            triedForRead.put(resource, token);
        }
    }

    /**
     * MariaDB: the registration in a READ COMMITTED, read-write transaction opened and ended by SQL (auto-commit left
     * as it is); the session is made read-write only after the commit ({@code SET SESSION TRANSACTION} is not
     * transactional there), so a registration whose commit failed leaves it read-only.
     */
    private Outcome registerOnceMariaDb(String resource, long token) throws SQLException {
        try (java.sql.Statement control = raw.createStatement()) {
            control.execute(MariaDbSessionFenceSql.REGISTRATION_ISOLATION);
            control.execute(MariaDbSessionFenceSql.REGISTRATION_START);
            if (!probe.inServerTransaction()) {
                throw Refusals.cannotGuard("the server reported no transaction after START TRANSACTION, so the"
                        + " session was not registered");
            }
            Outcome outcome;
            try {
                outcome = registerMariaDb(resource, token);
                control.execute(outcome == Outcome.REGISTERED ? "COMMIT AND NO CHAIN NO RELEASE"
                        : "ROLLBACK AND NO CHAIN NO RELEASE");
            } catch (SQLException | RuntimeException | Error failure) {
                try {
                    control.execute("ROLLBACK AND NO CHAIN NO RELEASE");
                } catch (SQLException rollbackFailure) {
                    failure.addSuppressed(rollbackFailure);
                }
                throw failure;
            }
            if (outcome == Outcome.REGISTERED) {
                admission.sessionRegistered();
                registered.put(resource, token);
            }
            return outcome;
        }
    }

    private Outcome registerMariaDb(String resource, long token) throws SQLException {
        return registerWith(resource, token, maria.lockMark(), List.of(new Write(maria.register(), true)),
                maria.registered(), probe.connectedThreadId(), "ProxySQL or MaxScale");
    }

    /** {@code statement} with the query timeout of the caller's call under way. */
    private PreparedStatement timed(PreparedStatement statement) throws SQLException {
        statement.setQueryTimeout(queryTimeout.getAsInt());
        return statement;
    }

    private Outcome register(String resource, long token) throws SQLException {
        try (PreparedStatement wait = timed(raw.prepareStatement(SessionFenceSql.LOCK_WAIT))) {
            wait.executeQuery().close();
        }
        return registerWith(resource, token, sql.lockMark(), List.of(new Write(sql.bumpGeneration(), false),
                new Write(sql.register(), true)), sql.registered(), probe.connectedBackendPid(),
                "PgBouncer in transaction mode");
    }

    /** A statement of a registration: parameter 1 the resource, and 2 the token when {@code withToken}. */
    private record Write(String sql, boolean withToken) {
    }

    /**
     * The registration both databases share, in the transaction the caller opened: the epoch row's locking read
     * ({@code lockMark}), the {@code writes} when the mark is the token, then the server's own word on which session
     * the row names and at which token ({@code registered}), which must be the session this connection was opened to
     * ({@code connectedId}: a proxy that shares server sessions, such as {@code proxy}, is refused).
     */
    private Outcome registerWith(String resource, long token, String lockMark, List<Write> writes, String registered,
                                 long connectedId, String proxy) throws SQLException {
        long mark;
        try (PreparedStatement lock = timed(raw.prepareStatement(lockMark))) {
            lock.setString(1, resource);
            lock.execute(); // MySQL Connector/J's executeQuery refuses a SET STATEMENT ... FOR SELECT
            try (ResultSet rs = lock.getResultSet()) {
                if (!rs.next()) {
                    return Outcome.BEHIND;
                }
                mark = rs.getLong(1);
            }
        }
        if (mark > token) {
            throw Refusals.stale(resource, token, mark);
        }
        if (mark < token) {
            return Outcome.BEHIND;
        }
        for (Write write : writes) {
            try (PreparedStatement statement = timed(raw.prepareStatement(write.sql()))) {
                statement.setString(1, resource);
                if (write.withToken()) {
                    statement.setLong(2, token);
                }
                statement.executeUpdate();
            }
        }
        long serverId;
        long held;
        try (PreparedStatement check = timed(raw.prepareStatement(registered))) {
            check.setString(1, resource);
            try (ResultSet rs = check.executeQuery()) {
                rs.next();
                serverId = rs.getLong(1);
                held = rs.getLong(2);
                if (rs.wasNull()) {
                    held = -1;
                }
            }
        }
        if (connectedId != serverId) {
            throw new SQLException("fencing: " + FencingProperty.GUARD.getName() + "=session needs one server session per"
                    + " connection, but " + (connectedId == 0 ? "the driver does not say which server session it"
                    + " connected to" : "this connection was opened to server session " + connectedId) + " and its"
                    + " statements run in session " + serverId + " (a proxy that shares server sessions between clients,"
                    + " such as " + proxy + "?). Use " + FencingProperty.GUARD.getName() + "=statement with such a"
                    + " proxy", FencingSqlState.CONFIGURATION);
        }
        if (held != token) {
            throw Refusals.registrationMismatch(resource, held, token);
        }
        return Outcome.REGISTERED;
    }
}
