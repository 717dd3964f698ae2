package dev.fencing.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a torture history against the database's final state (SPEC C2, C3, C4) and explains each violation with a
 * minimal counter-example: the operations and mark changes involved, in commit order.
 *
 * <p>Commit order comes from the database (see {@link Schema}): log rows and mark changes carry positions that
 * are exactly the order in which their transactions committed. Operations whose outcome the client could not know
 * (connection lost at commit time) count as committed when their log row is there and as never run when it is not;
 * either way they must be all or nothing.
 */
final class Checker {
    /** Clock skew allowed between the client's clock and the database's when ordering a refusal and a mark change. */
    static final long SLACK_MICROS = 20_000;
    private static final Set<String> BAD_ERROR_CLASSES = Set.of("22", "23", "42", "XX");

    /** One broken promise. */
    record Violation(String clause, String summary, List<String> counterExample) {
        @Override
        public String toString() {
            StringBuilder text = new StringBuilder(clause).append(": ").append(summary);
            if (!counterExample.isEmpty()) {
                text.append("\n  counter-example, in order:");
                for (String line : counterExample) {
                    text.append("\n    ").append(line);
                }
            }
            return text.toString();
        }
    }

    private final History history;
    private final FinalState state;
    private final Map<Long, Op> ops = new HashMap<>();
    private final List<Violation> violations = new ArrayList<>();

    private Checker(History history, FinalState state) {
        this.history = history;
        this.state = state;
        for (Op op : history.ops()) {
            ops.put(op.id, op);
        }
    }

    static List<Violation> check(History history, FinalState state) {
        Checker checker = new Checker(history, state);
        checker.checkLogRows();
        checker.checkOutcomes();
        checker.checkRows(false);
        checker.checkRows(true);
        checker.checkStatementTriggers();
        checker.checkCommitOrder();
        checker.checkSamples();
        checker.checkRefusals();
        checker.checkErrors();
        return checker.violations;
    }

    private void violation(String clause, String summary, List<String> counterExample) {
        violations.add(new Violation(clause, summary, counterExample));
    }

    private boolean present(Op op) {
        return state.ops().containsKey(op.id);
    }

    /** Every log row belongs to an operation of the history, with its token; positions are unique. */
    private void checkLogRows() {
        Map<Long, String> positions = new HashMap<>();
        for (FinalState.MarkChange change : state.marks()) {
            positions.put(change.pos(), "mark change " + change.oldMark() + " -> " + change.newMark());
        }
        for (FinalState.LogRow row : state.ops().values()) {
            String other = positions.put(row.pos(), "log row of op#" + row.opId());
            if (other != null) {
                violation("MEASUREMENT", "commit position " + row.pos() + " was taken twice", List.of(other,
                        "log row of op#" + row.opId()));
            }
            Op op = ops.get(row.opId());
            if (op == null) {
                violation("C3", "a log row (op#" + row.opId() + ", token " + row.token() + ") belongs to no operation"
                        + " of the history", List.of());
            } else if (op.token != row.token()) {
                violation("C3", "op#" + op.id + " is logged with token " + row.token() + ", not its own " + op.token,
                        List.of(op.describe()));
            }
        }
    }

    /** Acknowledged commits are there; refused and failed operations left nothing; nothing is half there. */
    private void checkOutcomes() {
        for (Op op : ops.values()) {
            boolean logged = present(op);
            int items = state.items().getOrDefault(op.id, 0);
            if (op.mustBePresent() && !logged) {
                violation("C3", "op#" + op.id + " was acknowledged as committed but is not in the database",
                        List.of(op.describe()));
            } else if (op.mustBeAbsent() && (logged || items > 0)) {
                violation("C3", "op#" + op.id + " ended " + op.outcome + " but left " + (logged ? "its log row" : "")
                        + (logged && items > 0 ? " and " : "") + (items > 0 ? items + " item rows" : "") + " behind",
                        List.of(op.describe()));
            } else if (logged ? items != op.items : items > 0) {
                violation("C3", "op#" + op.id + " is only partly there: log row " + (logged ? "present" : "absent")
                        + ", " + items + " of " + op.items + " item rows", List.of(op.describe()));
            }
        }
        for (Long opId : state.items().keySet()) {
            if (!ops.containsKey(opId)) {
                violation("C3", "item rows of op#" + opId + " belong to no operation of the history", List.of());
            }
        }
    }

    /**
     * The data table's statement-level trigger fired exactly once per UPDATE statement of the operations that are
     * there (C8): never for a refused statement, never twice for one statement.
     */
    private void checkStatementTriggers() {
        long expected = 0;
        for (Op op : ops.values()) {
            if (present(op)) {
                expected += op.dataIds.length;
            }
        }
        if (state.dataStatements() != expected) {
            violation("C8", "the data table's statement trigger fired " + state.dataStatements() + " times, but the"
                    + " operations in the database sent " + expected + " UPDATE statements", List.of());
        }
    }

    /**
     * Each data (or slot) row counts exactly the updates of the operations that are there, and was last written
     * by the last of them in commit order.
     */
    private void checkRows(boolean slots) {
        Map<Integer, FinalState.Row> rows = slots ? state.slots() : state.data();
        for (FinalState.Row row : rows.values()) {
            long expected = 0;
            Op last = null;
            List<Op> absent = new ArrayList<>();
            for (Op op : ops.values()) {
                int updates = slots ? (op.slot == row.id() ? 1 : 0) : op.updatesOf(row.id());
                if (updates == 0) {
                    continue;
                }
                if (!present(op)) {
                    absent.add(op);
                    continue;
                }
                expected += updates;
                if (last == null || pos(op) > pos(last)) {
                    last = op;
                }
            }
            Long lastId = last == null ? null : last.id;
            if (row.v() != expected || !java.util.Objects.equals(row.lastOp(), lastId)) {
                absent.sort(Comparator.comparingLong(op -> op.id));
                List<String> suspects = new ArrayList<>();
                for (Op op : absent.subList(0, Math.min(8, absent.size()))) {
                    suspects.add(op.describe());
                }
                violation("C3", (slots ? "slot " : "data row ") + row.id() + " holds count " + row.v()
                        + " last written by op#" + row.lastOp() + ", but the operations in the database account for "
                        + expected + " last written by op#" + lastId + "; operations absent from the database that"
                        + " touched it:", suspects);
            }
        }
    }

    private long pos(Op op) {
        return state.ops().get(op.id).pos();
    }

    /**
     * Walks commit order: the mark only rises, each change starts where the last one ended, and every committed
     * operation's token is the mark at its commit (lower: a stale commit, C4; higher: an advance that was not
     * recorded, C2).
     */
    private void checkCommitOrder() {
        TreeMap<Long, Object> events = new TreeMap<>();
        for (FinalState.MarkChange change : state.marks()) {
            events.put(change.pos(), change);
        }
        for (FinalState.LogRow row : state.ops().values()) {
            if (ops.containsKey(row.opId())) {
                events.put(row.pos(), ops.get(row.opId()));
            }
        }
        long mark = 0;
        FinalState.MarkChange lastChange = null;
        for (Map.Entry<Long, Object> event : events.entrySet()) {
            if (event.getValue() instanceof FinalState.MarkChange change) {
                if (change.oldMark() != mark) {
                    violation("C2", "the mark changed from " + change.oldMark() + " at position " + change.pos()
                            + " but was " + mark + " after the previous change", List.of(describe(lastChange),
                            describe(change)));
                }
                if (change.newMark() < change.oldMark()) {
                    violation("C2", "the high-water mark decreased", List.of(describe(change)));
                }
                mark = change.newMark();
                lastChange = change;
                continue;
            }
            Op op = (Op) event.getValue();
            if (op.token < mark) {
                violation("C4", "op#" + op.id + " with token " + op.token + " committed at position " + event.getKey()
                        + " after the high-water mark had reached " + mark, staleCommit(op, event.getKey(), events));
            } else if (op.token > mark) {
                violation("C2", "op#" + op.id + " committed with token " + op.token + " above the high-water mark "
                        + mark + " without raising it", List.of(describe(lastChange), "pos " + event.getKey() + ": "
                        + op.describe()));
            }
        }
        if (state.mark() != mark) {
            violation("C2", "the epoch table holds " + state.mark() + " but the logged changes end at " + mark,
                    List.of(describe(lastChange)));
        }
    }

    /** The change that first lifted the mark above the stale token, what made it, then the stale operation. */
    private List<String> staleCommit(Op stale, long stalePos, TreeMap<Long, Object> events) {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<Long, Object> event : events.headMap(stalePos).entrySet()) {
            if (event.getValue() instanceof FinalState.MarkChange change && change.newMark() > stale.token) {
                lines.add(describe(change));
                Object next = events.get(change.pos() + 1);
                if (next instanceof Op raiser && raiser.token == change.newMark()) {
                    lines.add("pos " + (change.pos() + 1) + ", same transaction: " + raiser.describe());
                } else {
                    for (History.Acquisition acquisition : history.acquisitions()) {
                        if (acquisition.token() == change.newMark() && acquisition.revoke()) {
                            lines.add("made by the issuer: " + acquisition.describe());
                        }
                    }
                }
                break;
            }
        }
        for (History.Acquisition acquisition : history.acquisitions()) {
            if (acquisition.token() == stale.token && acquisition.newEpoch()) {
                lines.add(0, "stale token issued: " + acquisition.describe());
            }
        }
        lines.add("pos " + stalePos + ", stale: " + stale.describe());
        return lines;
    }

    private static String describe(FinalState.MarkChange change) {
        return change == null ? "(no earlier mark change: the mark was 0)" : "pos " + change.pos()
                + ": high-water mark " + change.oldMark() + " -> " + change.newMark();
    }

    /** The monitor's reads of the mark never went down and only ever saw logged values. */
    private void checkSamples() {
        Set<Long> logged = new java.util.HashSet<>(List.of(0L));
        for (FinalState.MarkChange change : state.marks()) {
            logged.add(change.newMark());
        }
        History.Sample previous = null;
        for (History.Sample sample : history.samples()) {
            if (previous != null && sample.mark() < previous.mark()) {
                violation("C2", "the high-water mark went down between two reads", List.of("+" + previous.atMillis()
                        + "ms read " + previous.mark(), "+" + sample.atMillis() + "ms read " + sample.mark()));
            }
            if (!logged.contains(sample.mark())) {
                violation("C2", "the monitor read the mark " + sample.mark() + ", which no logged change set",
                        List.of("+" + sample.atMillis() + "ms read " + sample.mark()));
            }
            previous = sample;
        }
    }

    /**
     * A stale refusal names a mark above the token that a committed change had set before the refusal; any other
     * refusal of an issued token is wrong.
     */
    private void checkRefusals() {
        for (Op op : ops.values()) {
            if (op.outcome != Op.Outcome.REFUSED) {
                continue;
            }
            if (!"ZF002".equals(op.sqlState)) {
                violation("C2", "op#" + op.id + " with an issued token was refused with " + op.sqlState,
                        List.of(op.describe()));
                continue;
            }
            FinalState.MarkChange raise = null;
            for (FinalState.MarkChange change : state.marks()) {
                if (change.newMark() > op.token) {
                    raise = change;
                    break;
                }
            }
            if (op.reportedMark <= op.token || raise == null || raise.atMicros() > op.endedAtMicros + SLACK_MICROS) {
                violation("C2", "op#" + op.id + " was refused as stale while its token " + op.token + " was current",
                        List.of(op.describe(), raise == null ? "no committed change ever raised the mark above "
                                + op.token : describe(raise) + ", made " + (raise.atMicros() - op.endedAtMicros) / 1000
                                + "ms after the refusal"));
            }
        }
    }

    /**
     * Under the session fence a connection serves one token per resource: a pooled connection registered at an
     * older token is closed when asked for a newer one (08006, nothing changed), which the pool replaces. That is
     * the mode's documented cost, not an error; what the op changed is still checked (C3).
     */
    private static boolean movedToken(Op op) {
        return "08006".equals(op.sqlState) && op.message.startsWith("fencing: this connection is fenced at token");
    }

    /**
     * An advance the fence gave up after its bounded wait for a lock (PostgreSQL's own {@code 55P03}, issue 21): the
     * same outcome as the server's lock timeout, which the injected short {@code lock_timeout} explains.
     */
    private static boolean heldOffAdvance(Op op) {
        return "55P03".equals(op.sqlState) && op.message.startsWith("fencing: the epoch of resource");
    }

    /**
     * Errors that no injected fault explains: broken SQL, constraint violations, internal errors, and the fencing
     * driver's own errors other than refusals (a writer it could not serve).
     */
    private void checkErrors() {
        for (Op op : ops.values()) {
            boolean bad = op.sqlState != null && op.sqlState.length() >= 2
                    && BAD_ERROR_CLASSES.contains(op.sqlState.substring(0, 2))
                    || op.message != null && op.message.startsWith("fencing:") && !movedToken(op)
                    && !heldOffAdvance(op);
            if ((op.outcome == Op.Outcome.FAILED || op.outcome == Op.Outcome.UNKNOWN) && bad) {
                violation("ERROR", "op#" + op.id + " failed with an error no fault explains", List.of(op.describe()));
            }
        }
    }
}
