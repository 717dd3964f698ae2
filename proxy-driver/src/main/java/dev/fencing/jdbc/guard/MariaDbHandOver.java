package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.audit.SqlStates;
import dev.fencing.sql.MariaDbSessionFenceSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The advancing side of the MariaDB session fence: a raise of a mark that the epoch table's trigger refused because
 * a session registered below it is alive ({@link MariaDbSessionFenceSql#LIVE_SESSION_STATE}) ends those sessions and
 * lets the raise run again. A trigger cannot {@code KILL}; every advance through this driver (a fenced write, the
 * issuer's revocation) passes here, and any other client's raise is refused by the trigger until the sessions end.
 *
 * <p>Order, all in the raising transaction: {@code KILL CONNECTION} of each live session registered below and a wait
 * until the server lists none of them (a session leaves the list only after its transaction ended, committed or
 * rolled back); then the epoch row's exclusive lock (no registration at the old mark can commit after it) and the
 * same for any session that registered meanwhile; then the raise again, whose trigger checks once more with its
 * definer's view of every session.
 */
final class MariaDbHandOver {
    private MariaDbHandOver() {
    }

    /** Whether {@code e} is the trigger's refusal of a raise over a live registered session. */
    static boolean refusedForLiveSession(SQLException e) {
        return MariaDbSessionFenceSql.LIVE_SESSION_STATE.equals(e.getSQLState());
    }

    /**
     * Whether {@code e} is the session table's refusal to delete the row of a session the server still lists: met by
     * a raise whose clean-up ran while a session the hand-over ended was still listed.
     */
    static boolean liveRowKept(SQLException e) {
        return dev.fencing.sql.EpochSql.MARK_PROTECTED_STATE.equals(e.getSQLState()) && e.getMessage() != null
                && e.getMessage().contains("registration of a live session cannot be deleted");
    }

    /**
     * Ends every session this connection sees registered for {@code resource} below {@code token} and alive, and
     * waits until the server no longer lists them; the raise is then run again by the caller. None seen is not an
     * error here: the session the trigger saw may have ended in between (it closed, or another raise ended it), and
     * the raise's next try tells; only a trigger that keeps refusing while none is seen means this user cannot see
     * them ({@link #noneSeen}).
     *
     * @param refusal the trigger's refusal, the cause of an error met on the way
     * @return how many sessions were ended
     */
    static int endSessionsBelow(Connection raw, MariaDbSessionFenceSql sql, String resource, long token,
                                SQLException refusal) throws SQLException {
        long own;
        try (Statement s = raw.createStatement(); ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
            rs.next();
            own = rs.getLong(1);
        }
        // First without the epoch row's lock: an old session may hold a statement guard's shared lock on it, which the
        // exclusive lock would wait for; then under the lock, for a registration that committed in between.
        int ended = endVisible(raw, sql, resource, token, refusal, own);
        try (PreparedStatement lock = raw.prepareStatement(sql.lockForRaise())) {
            lock.setString(1, resource);
            lock.executeQuery().close();
        }
        ended += endVisible(raw, sql, resource, token, refusal, own);
        return ended;
    }

    /** The trigger's refusal of a raise, repeated while this connection saw no such session: a missing privilege. */
    static SQLException noneSeen(SQLException refusal) {
        return withAdvice(refusal, "the driver's user sees no such session: it needs PROCESS to see, and CONNECTION"
                + " ADMIN (or SUPER) to end, other users' sessions");
    }

    /** Ends the live sessions below {@code token} this connection sees and waits until they are gone; how many. */
    private static int endVisible(Connection raw, MariaDbSessionFenceSql sql, String resource, long token,
                                  SQLException refusal, long own) throws SQLException {
        List<Long> ended = new ArrayList<>();
        try (PreparedStatement live = raw.prepareStatement(sql.liveBelow())) {
            live.setString(1, resource);
            live.setLong(2, token);
            try (ResultSet rs = live.executeQuery()) {
                while (rs.next()) {
                    long id = rs.getLong(1);
                    if (id == own) {
                        throw new SQLException("fencing: this session is registered for resource '" + resource
                                + "' at token " + rs.getLong(3) + " and cannot raise its mark to " + token + ": open a"
                                + " new connection for the new token", FencingSqlState.PROTECTED, refusal);
                    }
                    ended.add(id);
                }
            }
        }
        if (ended.isEmpty()) {
            return 0;
        }
        try (Statement kill = raw.createStatement()) {
            for (long id : ended) {
                try {
                    kill.execute(MariaDbSessionFenceSql.kill(id));
                } catch (SQLException e) {
                    if (e.getErrorCode() == SqlStates.MARIADB_UNKNOWN_THREAD) {
                        continue; // gone already
                    }
                    if (e.getErrorCode() == SqlStates.MARIADB_NOT_OWNER) {
                        throw withAdvice(e, "session " + id + " of another user is registered below the new mark and"
                                + " this user may not end it: grant CONNECTION ADMIN (or SUPER) to the users that take"
                                + " over, or use fencing.guard=statement");
                    }
                    throw e;
                }
            }
        }
        waitUntilGone(raw, ended, resource, token);
        return ended.size();
    }

    private static void waitUntilGone(Connection raw, List<Long> ids, String resource, long token)
            throws SQLException {
        long deadline = System.nanoTime() + MariaDbSessionFenceSql.END_SESSION_TIMEOUT_MS * 1_000_000L;
        try (PreparedStatement listed = raw.prepareStatement(MariaDbSessionFenceSql.stillListed(ids.size()))) {
            for (int i = 0; i < ids.size(); i++) {
                listed.setLong(i + 1, ids.get(i));
            }
            while (true) {
                try (ResultSet rs = listed.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        return;
                    }
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new SQLException("fencing: sessions " + ids + " registered for resource '" + resource
                            + "' below token " + token + " were ended but still listed by the server after "
                            + MariaDbSessionFenceSql.END_SESSION_TIMEOUT_MS + " ms; the mark stays where it was",
                            "HY000", SqlStates.MARIADB_LOCK_WAIT_TIMEOUT);
                }
                pause(2);
            }
        }
    }

    /** Waits {@code millis} for ended sessions to leave the server's list; an interrupt ends the wait as an error. */
    static void pause(long millis) throws SQLException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new SQLException("fencing: interrupted while waiting for old sessions to end", "HY000");
        }
    }

    private static SQLException withAdvice(SQLException cause, String advice) {
        return new SQLException(cause.getMessage() + " (" + advice + ")", cause.getSQLState(), cause.getErrorCode(),
                cause);
    }
}
