package dev.fencing.jdbc.internal;

import dev.fencing.sql.EpochSql;
import dev.fencing.sql.TransactionControl;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * The guard protocol of one connection: runs a mutation so that the epoch check and the write commit or roll
 * back together (SPEC C2, C3, C4), and knows which epoch-row locks the current transaction holds.
 *
 * <p>Inside a transaction, the first guarded statement for a (resource, token) takes the epoch-row lock (shared
 * where the database allows it), either inside the statement itself or by a locking read ahead of it; later
 * statements of that transaction run untouched, because no advance can commit while the lock is held. In
 * autocommit the guard travels inside the statement (one round trip); when it does not let the statement through,
 * the statement is run again in a transaction the driver opens, after a locking read or an advance decides.
 */
final class EpochGuard {
    /** Where a statement can carry the guard itself. */
    enum Inline {
        /** Never: lock first, then run. */
        NONE,
        /** Joined into the statement: usable in and out of transactions. */
        ANYWHERE,
        /** A guard statement ahead in the same round trip that fails loudly: only outside transactions. */
        AUTOCOMMIT_ONLY
    }

    /** One statement execution as the guard drives it. */
    interface Call<T> {
        /** Runs with the guard inside; {@code null} when the guard may not have let it through (nothing changed). */
        T inline(String resource, long token) throws SQLException;

        /** Runs while this transaction holds the epoch-row lock for {@code token}. */
        T locked(String resource, long token) throws SQLException;

        /** Runs the caller's statement as the underlying driver would, without a guard: a refusal in audit mode. */
        T untouched() throws SQLException;
    }

    private final Connection raw;
    private final EpochSql sql;
    private final IssuerCheck issuerCheck;
    private final Map<String, Long> held = new HashMap<>(4);
    private PreparedStatement lockAtLeast;
    private PreparedStatement advance;
    private boolean autoCommit;
    private boolean sqlTransaction;

    /** {@code issuerCheck} is {@code null} when never-issued tokens are not checked ({@code fencing.issuer.check=off}). */
    EpochGuard(Connection raw, EpochSql sql, IssuerCheck issuerCheck) throws SQLException {
        this.raw = raw;
        this.sql = sql;
        this.issuerCheck = issuerCheck;
        this.autoCommit = raw.getAutoCommit();
    }

    EpochSql sql() {
        return sql;
    }

    /** Runs {@code call} fenced for {@code resource} at {@code token}; refuses a stale token with nothing changed. */
    <T> T run(String resource, long token, Inline inline, Call<T> call) throws SQLException {
        if (inTransaction()) {
            if (!holds(resource, token)) {
                if (inline == Inline.ANYWHERE) {
                    T result = call.inline(resource, token);
                    if (result != null) {
                        held.put(resource, token);
                        return result;
                    }
                }
                lock(resource, token);
            }
            return call.locked(resource, token);
        }
        if (inline != Inline.NONE) {
            T result = call.inline(resource, token);
            if (result != null) {
                return result;
            }
        }
        return inDriverTransaction(resource, token, call);
    }

    private <T> T inDriverTransaction(String resource, long token, Call<T> call) throws SQLException {
        raw.setAutoCommit(false);
        try {
            lock(resource, token);
            T result = call.locked(resource, token);
            raw.commit();
            return result;
        } catch (SQLException | RuntimeException | Error failure) {
            try {
                raw.rollback();
            } catch (SQLException rollbackFailure) {
                failure.addSuppressed(rollbackFailure);
            }
            throw failure;
        } finally {
            held.clear();
            raw.setAutoCommit(true);
        }
    }

    /**
     * Takes the epoch-row lock for {@code token} in the current transaction: shared when the mark equals the
     * token, exclusive after raising a lower mark; a higher mark refuses the token as stale. Only a raise asks
     * the issuer check, so a token above the issued mark is refused before it can become the mark.
     */
    void lock(String resource, long token) throws SQLException {
        for (int attempt = 0; attempt < 8; attempt++) {
            PreparedStatement read = lockAtLeastStatement();
            read.setString(1, resource);
            read.setLong(2, token);
            try (ResultSet rs = read.executeQuery()) {
                if (rs.next()) {
                    long mark = rs.getLong(1);
                    if (mark != token) {
                        throw Refusals.stale(resource, token, mark);
                    }
                    held.put(resource, token);
                    return;
                }
            }
            if (issuerCheck != null) {
                issuerCheck.verify(resource, token);
            }
            if (advance(resource, token)) {
                held.put(resource, token);
                return;
            }
        }
        throw new SQLException("fencing: could not lock the epoch row of '" + resource + "' after repeated races");
    }

    /** Raises the mark to {@code token}; false when a concurrent first insert won the race and the caller should retry. */
    private boolean advance(String resource, long token) throws SQLException {
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
    long readMark(String resource) throws SQLException {
        try (PreparedStatement read = raw.prepareStatement(sql.readMark())) {
            read.setString(1, resource);
            try (ResultSet rs = read.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
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

    private boolean holds(String resource, long token) {
        Long lockedToken = held.get(resource);
        return lockedToken != null && lockedToken == token;
    }

    boolean inTransaction() {
        return !autoCommit || sqlTransaction;
    }

    /** Whether {@code e} is the prefix guard refusing to let the statement after it run. */
    static boolean isGuardFailure(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(EpochSql.GUARD_FAILURE_MARKER)) {
                return true;
            }
        }
        return false;
    }

    void autoCommitChanged(boolean autoCommit) {
        this.autoCommit = autoCommit;
        transactionEnded();
    }

    /** The transaction committed or rolled back: its locks are gone. */
    void transactionEnded() {
        held.clear();
        sqlTransaction = false;
    }

    /** A savepoint was rolled back: locks taken after it may be gone, so the next mutation is guarded again. */
    void locksMayBeGone() {
        held.clear();
    }

    /** Keeps the transaction state right after transaction control sent as SQL. */
    void afterTransactionControl(TransactionControl control) {
        switch (control) {
            case BEGIN:
                if (autoCommit) {
                    sqlTransaction = true;
                }
                break;
            case COMMIT:
            case ROLLBACK:
                transactionEnded();
                break;
            case ROLLBACK_TO_SAVEPOINT:
                locksMayBeGone();
                break;
            default:
                break;
        }
    }

    void close() {
        closeQuietly(lockAtLeast);
        closeQuietly(advance);
    }

    private static void closeQuietly(PreparedStatement statement) {
        if (statement != null) {
            try {
                statement.close();
            } catch (SQLException ignored) {
                // the connection is closing; nothing to report
            }
        }
    }
}
