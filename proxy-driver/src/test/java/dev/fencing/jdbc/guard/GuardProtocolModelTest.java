package dev.fencing.jdbc.guard;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A model of the guard protocols, checked exhaustively: an old owner (token 5) and a new owner whose first write
 * raises the mark to 6, each step of the protocol a transition named after the code that takes it ({@code
 * SessionFence.register}'s lockMark / bumpGeneration / register / commit; the hand-over trigger's raise /
 * bumpGeneration / scan / endSessions; {@code EpochGuard}'s prefix guard). Every interleaving is explored and
 * checked for SPEC C4: no write of token 5 commits after the mark 6 committed.
 *
 * <p>What the database does is modelled where the protocol relies on it: a {@code FOR SHARE} read waits for an
 * uncommitted raise and then reads the newest version; an {@code UPDATE} waits for share lockers; a REPEATABLE READ
 * transaction sees what committed before its snapshot and fails with 40001 when it changes a row someone changed
 * after it; {@code pg_terminate_backend} ends a session and rolls its open transaction back. Each planted bug
 * (a step the code takes differently) must produce a violation, so the model can fail.
 */
class GuardProtocolModelTest {
    /** A variant of the protocol: the real one, or one with a planted bug. */
    enum Variant {
        REAL,
        /** Registration reads the mark without locking the epoch row. */
        UNLOCKED_REGISTRATION_READ,
        /** The hand-over does not bump the generation row (so a REPEATABLE READ raise cannot see a late registration). */
        NO_GENERATION_BUMP,
        /** The writer believes its registration before its transaction committed (and keeps it if that rolls back). */
        BELIEF_BEFORE_COMMIT,
        /** The statement guard reads the mark from the statement's snapshot, taken before waiting for the lock. */
        GUARD_READS_SNAPSHOT_AFTER_WAIT
    }

    /** How the old owner writes. */
    enum Writer { SESSION_FENCE, STATEMENT_GUARD }

    /** The whole state; copied on every transition. */
    static final class State implements Cloneable {
        int time;
        int mark = 5;
        int advanceCommittedAt = -1;
        List<int[]> commits = new ArrayList<>(); // {token, time}
        int genChangedAt;
        // old owner
        int w;
        boolean wAlive = true;
        boolean wHoldsShare;
        boolean wHoldsGen;
        boolean wRegistrationCommitted;
        int wRegistrationAt;
        boolean wBelieves;
        boolean wWriting;
        int wWrites;
        int wSnapshotMark;
        boolean wDone;
        // new owner (raises the mark to 6 and writes in the same transaction)
        int a;
        boolean repeatableRead;
        /** Whether the registration's transaction rolls back (a lost connection, a cancel) instead of committing. */
        boolean registrationAborts;
        int aSnapshot;
        boolean aHoldsRow;
        boolean aHoldsGen;
        boolean aSawRegistration;
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
            b.append(time).append(mark).append(advanceCommittedAt).append(genChangedAt).append(w).append(wAlive)
                    .append(wHoldsShare).append(wHoldsGen).append(wRegistrationCommitted).append(wRegistrationAt)
                    .append(wBelieves).append(wWriting).append(wWrites).append(wSnapshotMark).append(wDone).append(a)
                    .append(repeatableRead).append(registrationAborts).append(aSnapshot).append(aHoldsRow).append(aHoldsGen)
                    .append(aSawRegistration).append(aDone);
            for (int[] c : commits) {
                b.append('/').append(c[0]).append(':').append(c[1]);
            }
            return b.toString();
        }
    }

    /** Result of one exhaustive exploration. */
    record Result(int states, int finalStates, List<String> violations) {
    }

    /** Explores every interleaving of one variant. */
    static final class Explorer {
        private final Variant variant;
        private final Writer writer;
        private final Set<String> seen = new HashSet<>();
        private final List<String> violations = new ArrayList<>();
        private int finalStates;

        private Explorer(Variant variant, Writer writer) {
            this.variant = variant;
            this.writer = writer;
        }

        static Result explore(Variant variant, Writer writer) {
            Explorer model = new Explorer(variant, writer);
            for (boolean rr : new boolean[] {false, true}) {
                for (boolean aborts : new boolean[] {false, true}) {
                    State start = new State();
                    start.repeatableRead = rr;
                    start.registrationAborts = aborts;
                    model.dfs(start, new ArrayList<>());
                }
            }
            return new Result(model.seen.size(), model.finalStates, model.violations);
        }

        private void dfs(State s, List<String> trace) {
            if (!seen.add(s.key())) {
                return;
            }
            check(s, trace);
            boolean moved = false;
            for (int actor = 0; actor < 2; actor++) {
                State next = s.clone();
                String step = actor == 0 ? (writer == Writer.SESSION_FENCE ? sessionWriter(next) : statementWriter(next))
                        : newOwner(next);
                if (step != null) {
                    moved = true;
                    trace.add(step);
                    dfs(next, trace);
                    trace.remove(trace.size() - 1);
                }
            }
            if (!moved) {
                finalStates++;
                assertTrue(s.wDone && s.aDone, "deadlock after " + trace);
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

        /** One step of the old owner under the session fence, or {@code null} when it cannot move. */
        private String sessionWriter(State s) {
            if (s.wDone) {
                return null;
            }
            if (!s.wAlive) {
                s.wDone = true;
                return "w:ended";
            }
            switch (s.w) {
                case 0: // SessionFence.register: lockMark (FOR SHARE): waits for an uncommitted raise
                    if (variant != Variant.UNLOCKED_REGISTRATION_READ) {
                        if (s.aHoldsRow) {
                            return null;
                        }
                        s.wHoldsShare = true;
                    }
                    if (s.mark != 5) {
                        s.wHoldsShare = false;
                        s.wDone = true;
                        return "w:lockMark(stale)";
                    }
                    s.w = 1;
                    return "w:lockMark";
                case 1: // bumpGeneration
                    if (s.aHoldsGen) {
                        return null;
                    }
                    s.wHoldsGen = true;
                    s.w = 2;
                    return "w:bumpGeneration";
                case 2: // register (own row, uncommitted)
                    if (variant == Variant.BELIEF_BEFORE_COMMIT) {
                        s.wBelieves = true;
                    }
                    s.w = 3;
                    return "w:register";
                case 3: // commit of the registration: visible, and believed
                    if (s.registrationAborts) {
                        s.wHoldsShare = false;
                        s.wHoldsGen = false;
                        s.w = 4;
                        return "w:rollbackRegistration";
                    }
                    s.time++;
                    s.wRegistrationCommitted = true;
                    s.wRegistrationAt = s.time;
                    s.genChangedAt = s.time;
                    s.wHoldsShare = false;
                    s.wHoldsGen = false;
                    s.wBelieves = true;
                    s.w = 4;
                    return "w:commitRegistration";
                case 4: // EpochGuard.run: covered by the session fence: the caller's statement goes untouched
                    if (!s.wBelieves) {
                        s.wDone = true;
                        return "w:refused";
                    }
                    s.wWriting = true;
                    s.w = 5;
                    return "w:writeUntouched";
                default: // the caller's commit
                    s.time++;
                    s.commits.add(new int[] {5, s.time});
                    s.wWriting = false;
                    s.wWrites++;
                    s.w = s.wWrites < 2 ? 4 : 6;
                    s.wDone = s.w == 6;
                    return "w:commit";
            }
        }

        /** One step of the old owner under the statement guard (prefix guard, then the write, then commit). */
        private String statementWriter(State s) {
            if (s.wDone) {
                return null;
            }
            switch (s.w) {
                case 0: // the guard statement starts: its snapshot
                    s.wSnapshotMark = s.mark;
                    s.w = 1;
                    return "w:guardStart";
                case 1: // FOR SHARE on the epoch row: waits for an uncommitted raise, then reads the newest version
                    if (s.aHoldsRow) {
                        return null;
                    }
                    int seen = variant == Variant.GUARD_READS_SNAPSHOT_AFTER_WAIT ? s.wSnapshotMark : s.mark;
                    if (seen != 5) {
                        s.wDone = true;
                        return "w:guardStale";
                    }
                    s.wHoldsShare = true;
                    s.w = 2;
                    return "w:guardLocked";
                case 2:
                    s.wWriting = true;
                    s.w = 3;
                    return "w:write";
                default:
                    s.time++;
                    s.commits.add(new int[] {5, s.time});
                    s.wWriting = false;
                    s.wHoldsShare = false;
                    s.wWrites++;
                    s.w = 0;
                    s.wDone = s.wWrites == 2;
                    return "w:commit";
            }
        }

        /** One step of the new owner: the advance (and its hand-over trigger), its write, its commit. */
        private String newOwner(State s) {
            if (s.aDone) {
                return null;
            }
            switch (s.a) {
                case 0: // the transaction's snapshot (REPEATABLE READ keeps it)
                    s.aSnapshot = s.time;
                    s.a = 1;
                    return "a:begin";
                case 1: // EpochGuard.advance: raise (UPDATE of the epoch row): waits for share lockers
                    if (s.wHoldsShare) {
                        return null;
                    }
                    s.aHoldsRow = true;
                    s.a = writer == Writer.SESSION_FENCE ? 2 : 5;
                    return "a:raise";
                case 2: // hand-over: bumpGeneration
                    if (variant != Variant.NO_GENERATION_BUMP) {
                        if (s.wHoldsGen) {
                            return null;
                        }
                        if (s.repeatableRead && s.genChangedAt > s.aSnapshot) {
                            s.aHoldsRow = false;
                            s.aDone = true;
                            return "a:bumpGeneration(40001)";
                        }
                        s.aHoldsGen = true;
                    }
                    s.a = 3;
                    return "a:bumpGeneration";
                case 3: // hand-over: scan the registrations it can see
                    s.aSawRegistration = s.wRegistrationCommitted
                            && (!s.repeatableRead || s.wRegistrationAt <= s.aSnapshot);
                    s.a = 4;
                    return "a:scan";
                case 4: // hand-over: endSessions (pg_terminate_backend waits until the session is gone)
                    if (s.aSawRegistration && s.wAlive) {
                        s.wAlive = false;
                        s.wWriting = false; // its open transaction rolls back
                        s.wHoldsShare = false;
                        s.wHoldsGen = false;
                    }
                    s.a = 5;
                    return "a:endSessions";
                default: // the new owner's write and commit: the mark is 6 from here
                    s.time++;
                    s.mark = 6;
                    s.advanceCommittedAt = s.time;
                    s.commits.add(new int[] {6, s.time});
                    s.aHoldsRow = false;
                    s.aHoldsGen = false;
                    s.aDone = true;
                    return "a:commit";
            }
        }
    }

    private static Result explore(Variant variant, Writer writer) {
        return Explorer.explore(variant, writer);
    }

    @Test
    void theSessionFenceHoldsC4InEveryInterleavingAtBothIsolationLevels() {
        Result result = explore(Variant.REAL, Writer.SESSION_FENCE);
        assertEquals(List.of(), result.violations());
        assertTrue(result.states() > 100, "explored " + result.states() + " states");
    }

    @Test
    void theStatementGuardHoldsC4InEveryInterleaving() {
        Result result = explore(Variant.REAL, Writer.STATEMENT_GUARD);
        assertEquals(List.of(), result.violations());
        assertTrue(result.states() > 30, "explored " + result.states() + " states");
    }

    @Test
    void aRegistrationThatReadsTheMarkWithoutALockIsCaught() {
        assertTrue(!explore(Variant.UNLOCKED_REGISTRATION_READ, Writer.SESSION_FENCE).violations().isEmpty());
    }

    @Test
    void aHandOverWithoutTheGenerationBumpIsCaughtUnderRepeatableRead() {
        List<String> violations = explore(Variant.NO_GENERATION_BUMP, Writer.SESSION_FENCE).violations();
        assertTrue(!violations.isEmpty());
        assertTrue(violations.stream().allMatch(v -> v.startsWith("RR ")), violations.toString());
    }

    @Test
    void aBeliefBeforeTheRegistrationCommittedIsCaught() {
        assertTrue(!explore(Variant.BELIEF_BEFORE_COMMIT, Writer.SESSION_FENCE).violations().isEmpty());
    }

    @Test
    void aGuardThatReadsTheMarkFromItsSnapshotAfterWaitingIsCaught() {
        assertTrue(!explore(Variant.GUARD_READS_SNAPSHOT_AFTER_WAIT, Writer.STATEMENT_GUARD).violations().isEmpty());
    }
}
