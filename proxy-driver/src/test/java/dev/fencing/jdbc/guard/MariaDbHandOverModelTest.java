package dev.fencing.jdbc.guard;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guard-protocol model ({@link GuardProtocolModelTest}) for the MariaDB session fence's hand-over, checked
 * exhaustively: an old owner's session (token 5) registers ({@code SessionFence} on MariaDB: the epoch row {@code LOCK
 * IN SHARE MODE}, its own row inserted, commit, then believed) and commits writes untouched, while a new owner raises
 * the mark to 6 through the driver ({@code EpochGuard.raiseEndingSessions} and {@link MariaDbHandOver}): the {@code
 * UPDATE} of the epoch row, the trigger's refusal while a registered session is alive, the driver's look at the live
 * sessions below, {@code KILL CONNECTION}, the wait until the server no longer lists them, the raise again, the
 * trigger's clean-up {@code DELETE} (refused for a live session's row), the commit. Every interleaving is explored at
 * READ COMMITTED and REPEATABLE READ, with registrations that commit or roll back, and checked for SPEC C4: no write of
 * token 5 commits after the mark 6 committed.
 *
 * <p>What the server does is modelled where the protocol relies on it: a {@code KILL} lands at the session's next
 * step; a statement or open transaction of a killed session rolls back, but a {@code COMMIT} already under way
 * completes; the session stays in the process list until it has done either, and only then leaves it. Locking reads
 * (the trigger's {@code EXISTS ... LOCK IN SHARE MODE}, the {@code DELETE}, the driver's look) see the newest committed
 * registrations; a plain read in the raising transaction sees its snapshot (the transaction's first read at
 * REPEATABLE READ), as the trigger's own {@code SELECT MIN(p.ID)} does in the real protocol, which the model keeps.
 *
 * <p>Each planted bug (a step taken differently) must produce a violation, so the model can fail: a registration
 * believed before it committed; a raise committed before the old session is gone from the process list (a killed
 * session counted as gone); liveness read from a stale view (the raise's snapshot instead of locking reads).
 */
class MariaDbHandOverModelTest {
    /** A variant of the protocol: the real one, or one with a planted bug. */
    enum Variant {
        REAL,
        /** The old owner believes its registration once the row is inserted, before the commit (kept if it rolls back). */
        BELIEF_BEFORE_COMMIT,
        /**
         * The raise commits before the old session is gone from the process list: the driver does not wait after its
         * {@code KILL}, and the trigger and the clean-up count a killed session as gone.
         */
        RAISE_BEFORE_GONE,
        /** Which registrations are alive is read from the raising transaction's snapshot, not by locking reads. */
        STALE_LIVENESS_VIEW,
        /**
         * The driver's look at the live sessions below is a plain read (the code before this model: safe, since the
         * trigger's clean-up still refuses, but a raise whose snapshot predates a registration never ends it).
         */
        DRIVER_LOOK_FROM_SNAPSHOT
    }

    /** How many times the driver raises again before giving up (the real bound is larger; a few show every case). */
    private static final int ATTEMPTS = 3;

    /** The whole state; copied on every transition. */
    static final class State implements Cloneable {
        int time;
        int mark = 5;
        int advanceCommittedAt = -1;
        List<int[]> commits = new ArrayList<>(); // {token, time}
        boolean repeatableRead;
        boolean registrationAborts;
        // the old owner's session
        int w;
        boolean wHoldsShare;
        boolean wRowInserted;
        boolean wRowCommitted;
        int wRowCommittedAt = -1;
        boolean wRowDeleted;
        boolean wBelieves;
        boolean wOpen; // an open transaction with an uncommitted write
        boolean wCommitting; // a COMMIT under way
        int wWrites;
        boolean wKilled;
        boolean wListed = true;
        boolean wDone;
        // the new owner's raising transaction
        int a;
        int aSnapshot = -1;
        boolean aHoldsRow;
        int attempts;
        boolean aDone;

        @Override
        protected State clone() {
            try {
                State copy = (State) super.clone();
                copy.commits = new ArrayList<>(commits);
                return copy;
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }

        String key() {
            StringBuilder b = new StringBuilder();
            for (Object o : new Object[] {time, mark, advanceCommittedAt, repeatableRead, registrationAborts, w,
                    wHoldsShare, wRowInserted, wRowCommitted, wRowCommittedAt, wRowDeleted, wBelieves, wOpen,
                    wCommitting, wWrites, wKilled, wListed, wDone, a, aSnapshot, aHoldsRow, attempts, aDone}) {
                b.append(o).append(',');
            }
            for (int[] c : commits) {
                b.append('/').append(c[0]).append(':').append(c[1]);
            }
            return b.toString();
        }
    }

    /** Result of one exhaustive exploration. */
    record Result(int states, int finalStates, List<String> violations, int raisesGivenUp) {
    }

    /** Explores every interleaving of one variant. */
    static final class Explorer {
        private final Variant variant;
        private final Set<String> seen = new HashSet<>();
        private final List<String> violations = new ArrayList<>();
        private int finalStates;
        private int givenUp;

        private Explorer(Variant variant) {
            this.variant = variant;
        }

        static Result explore(Variant variant) {
            Explorer model = new Explorer(variant);
            for (boolean rr : new boolean[] {false, true}) {
                for (boolean aborts : new boolean[] {false, true}) {
                    State start = new State();
                    start.repeatableRead = rr;
                    start.registrationAborts = aborts;
                    model.dfs(start, new ArrayList<>());
                }
            }
            return new Result(model.seen.size(), model.finalStates, model.violations, model.givenUp);
        }

        private void dfs(State s, List<String> trace) {
            if (!seen.add(s.key())) {
                return;
            }
            check(s, trace);
            boolean moved = false;
            for (int actor = 0; actor < 2; actor++) {
                State next = s.clone();
                String step = actor == 0 ? oldOwner(next) : newOwner(next);
                if (step != null) {
                    moved = true;
                    trace.add(step);
                    dfs(next, trace);
                    trace.remove(trace.size() - 1);
                }
            }
            if (!moved) {
                finalStates++;
                assertTrue(s.wDone && s.aDone, "stuck after " + trace);
                if (s.advanceCommittedAt < 0) {
                    givenUp++;
                }
            }
        }

        private void check(State s, List<String> trace) {
            if (s.advanceCommittedAt < 0) {
                return;
            }
            for (int[] c : s.commits) {
                if (c[0] == 5 && c[1] > s.advanceCommittedAt) {
                    violations.add((s.repeatableRead ? "RR " : "RC ") + trace);
                    return;
                }
            }
        }

        /** One step of the old owner's session, or {@code null} when it cannot move. */
        private String oldOwner(State s) {
            if (s.wKilled && s.wListed) { // also a session done with its work: it stays connected until ended
                // the KILL lands: a COMMIT under way completes, anything else open rolls back; then the session leaves
                // the process list
                if (s.wCommitting) {
                    commitWrite(s);
                    return "w:commitCompletesUnderKill";
                }
                s.wOpen = false;
                s.wHoldsShare = false;
                if (s.wRowInserted && !s.wRowCommitted) {
                    s.wRowInserted = false; // the registration's transaction rolls back
                }
                s.wListed = false;
                s.wDone = true;
                return "w:killedAndGone";
            }
            if (s.wDone) {
                return null;
            }
            switch (s.w) {
                case 0: // SessionFence.register: the epoch row LOCK IN SHARE MODE waits for the raise's exclusive lock
                    if (s.aHoldsRow) {
                        return null;
                    }
                    if (s.mark != 5) {
                        s.wDone = true;
                        return "w:lockMark(stale)";
                    }
                    s.wHoldsShare = true;
                    s.w = 1;
                    return "w:lockMark";
                case 1: // the session's own row, uncommitted
                    s.wRowInserted = true;
                    if (variant == Variant.BELIEF_BEFORE_COMMIT) {
                        s.wBelieves = true;
                    }
                    s.w = 2;
                    return "w:insertRow";
                case 2: // the registration's commit (or rollback); believed only after the commit
                    s.wHoldsShare = false;
                    s.w = 3;
                    if (s.registrationAborts) {
                        s.wRowInserted = false;
                        return "w:rollbackRegistration";
                    }
                    s.time++;
                    s.wRowCommitted = true;
                    s.wRowCommittedAt = s.time;
                    s.wBelieves = true;
                    return "w:commitRegistration";
                case 3: // EpochGuard.run: covered by the registration, the caller's write goes untouched
                    if (!s.wBelieves) {
                        s.wDone = true;
                        return "w:notRegistered";
                    }
                    s.wOpen = true;
                    s.w = 4;
                    return "w:writeUntouched";
                case 4: // the caller's COMMIT is sent: under way
                    s.wCommitting = true;
                    s.w = 5;
                    return "w:commitSent";
                default: // the COMMIT completes
                    commitWrite(s);
                    s.w = s.wWrites < 2 ? 3 : 6;
                    s.wDone = s.w == 6;
                    return "w:commitDone";
            }
        }

        private static void commitWrite(State s) {
            s.time++;
            s.commits.add(new int[] {5, s.time});
            s.wOpen = false;
            s.wCommitting = false;
            s.wWrites++;
        }

        /** Whether the raising transaction's read of the registrations sees the old owner's row. */
        private boolean rowSeen(State s, boolean locking) {
            if (!s.wRowCommitted || s.wRowDeleted) {
                return false;
            }
            boolean fresh = locking && variant != Variant.STALE_LIVENESS_VIEW;
            return fresh || !s.repeatableRead || s.wRowCommittedAt <= s.aSnapshot;
        }

        /** Whether the hand-over counts the old session alive (listed; with the planted bug, listed and not killed). */
        private boolean counted(State s) {
            return s.wListed && !(variant == Variant.RAISE_BEFORE_GONE && s.wKilled);
        }

        /** One step of the new owner's raise, or {@code null} when it cannot move. */
        private String newOwner(State s) {
            if (s.aDone) {
                return null;
            }
            switch (s.a) {
                case 0: // the transaction's first read: its snapshot (kept at REPEATABLE READ)
                    s.aSnapshot = s.time;
                    s.a = 1;
                    return "a:begin";
                case 1: // the UPDATE of the epoch row: waits for the registration's shared lock, then holds the row
                    if (s.wHoldsShare) {
                        return null;
                    }
                    s.aHoldsRow = true;
                    s.a = 2;
                    return "a:raise";
                case 2: // the trigger: EXISTS ... LOCK IN SHARE MODE, then SELECT MIN(p.ID) joined to the process list
                    if (rowSeen(s, true) && rowSeen(s, false) && counted(s)) {
                        s.a = 4;
                        return "a:triggerRefuses(ZFH01)";
                    }
                    s.a = 3;
                    return "a:triggerPasses";
                case 3: // the trigger's clean-up DELETE of the rows below: refused for a live session's row
                    if (rowSeen(s, true) && counted(s)) {
                        s.a = 4;
                        return "a:deleteRefused(liveRowKept)";
                    }
                    if (rowSeen(s, true)) {
                        s.wRowDeleted = true;
                    }
                    s.a = 6;
                    return "a:delete";
                case 4: // MariaDbHandOver: the live sessions below (a locking read), KILL CONNECTION of each
                    if (s.attempts++ == ATTEMPTS) {
                        s.aHoldsRow = false;
                        s.aDone = true;
                        return "a:raiseGivesUp";
                    }
                    if (rowSeen(s, variant != Variant.DRIVER_LOOK_FROM_SNAPSHOT) && counted(s)) {
                        s.wKilled = true;
                        s.a = variant == Variant.RAISE_BEFORE_GONE ? 2 : 5;
                        return "a:kill";
                    }
                    s.a = 2;
                    return "a:noneSeen";
                case 5: // waits until the server no longer lists the killed session, then raises again
                    if (s.wListed) {
                        return null;
                    }
                    s.a = 2;
                    return "a:gone";
                default: // the commit: the mark is 6 from here
                    s.time++;
                    s.mark = 6;
                    s.advanceCommittedAt = s.time;
                    s.commits.add(new int[] {6, s.time});
                    s.aHoldsRow = false;
                    s.aDone = true;
                    return "a:commit";
            }
        }
    }

    @Test
    void theMariaDbHandOverHoldsC4InEveryInterleavingAtBothIsolationLevels() {
        Result result = Explorer.explore(Variant.REAL);
        assertEquals(List.of(), result.violations());
        assertTrue(result.states() > 100, "explored " + result.states() + " states");
        // the raise always gets through: no interleaving exhausts its tries (the session it ends leaves the list)
        assertEquals(0, result.raisesGivenUp(), "raises given up");
    }

    @Test
    void aRegistrationBelievedBeforeItCommittedIsCaught() {
        List<String> violations = Explorer.explore(Variant.BELIEF_BEFORE_COMMIT).violations();
        assertFalse(violations.isEmpty());
        assertTrue(violations.stream().anyMatch(v -> v.contains("w:rollbackRegistration")), violations.toString());
    }

    @Test
    void aRaiseCommittedBeforeTheOldSessionIsGoneFromTheProcessListIsCaught() {
        List<String> violations = Explorer.explore(Variant.RAISE_BEFORE_GONE).violations();
        assertFalse(violations.isEmpty());
        // the stale commit is one that was under way when the KILL landed
        assertTrue(violations.stream().anyMatch(v -> v.contains("w:commitCompletesUnderKill")), violations.toString());
    }

    @Test
    void aDriverLookFromTheSnapshotLetsRaisesGiveUpButNeverCommitsStale() {
        Result result = Explorer.explore(Variant.DRIVER_LOOK_FROM_SNAPSHOT);
        assertEquals(List.of(), result.violations());
        assertTrue(result.raisesGivenUp() > 0, "no raise gave up");
    }

    @Test
    void livenessReadFromAStaleViewIsCaughtUnderRepeatableRead() {
        List<String> violations = Explorer.explore(Variant.STALE_LIVENESS_VIEW).violations();
        assertFalse(violations.isEmpty());
        assertTrue(violations.stream().allMatch(v -> v.startsWith("RR ")), violations.toString());
    }
}
