package dev.fencing.torture;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The history checker on hand-made histories: legal ones (including unknown outcomes either way) pass, and each kind
 * of broken promise is reported with the operations involved.
 */
class CheckerTest {
    private final History history = new History(1);
    private final Map<Long, FinalState.LogRow> logRows = new HashMap<>();
    private final List<FinalState.MarkChange> marks = new ArrayList<>();
    private final Map<Long, Integer> items = new HashMap<>();
    private final Map<Integer, FinalState.Row> data = new HashMap<>();
    private long mark;
    private long pos;

    /** UPDATE statements on the data table the statement-level trigger counted. */
    private long statements;

    private Op op(long token, Op.Outcome outcome, int... dataIds) {
        Op op = history.newOp(1, token, dataIds.length == 0 ? Op.Shape.AUTOCOMMIT_INSERT : Op.Shape.TRANSACTION,
                dataIds, 0, -1, "test");
        op.end(outcome, outcome == Op.Outcome.REFUSED ? "ZF002" : null, null);
        return op;
    }

    /** The op's transaction commits now: raising the mark first when its token is above it. */
    private void commit(Op op) {
        if (op.token > mark) {
            raise(op.token);
        }
        logRows.put(op.id, new FinalState.LogRow(op.id, ++pos, op.token));
        statements += op.dataIds.length;
        for (int id : op.dataIds) {
            FinalState.Row row = data.getOrDefault(id, new FinalState.Row(id, 0, null));
            data.put(id, new FinalState.Row(id, row.v() + 1, op.id));
        }
    }

    private void raise(long to) {
        marks.add(new FinalState.MarkChange(++pos, mark, to, Micros.now() - 1_000_000));
        mark = to;
    }

    private List<Checker.Violation> check() {
        return Checker.check(history, new FinalState(logRows, marks, items, data, Map.of(), mark, statements));
    }

    private Checker.Violation only(String clause) {
        List<Checker.Violation> violations = check();
        assertEquals(1, violations.size(), violations.toString());
        assertEquals(clause, violations.get(0).clause(), violations.toString());
        return violations.get(0);
    }

    @Test
    void aLegalHistoryWithTakeoversRefusalsAndUnknownOutcomesPasses_C2_C3_C4() {
        commit(op(1, Op.Outcome.COMMITTED, 1, 2));
        commit(op(1, Op.Outcome.COMMITTED, 2));
        commit(op(2, Op.Outcome.UNKNOWN, 1));
        op(2, Op.Outcome.UNKNOWN, 3);
        Op refused = op(1, Op.Outcome.REFUSED, 3);
        refused.reportedMark = 2;
        op(3, Op.Outcome.FAILED, 1);
        raise(4);
        commit(op(4, Op.Outcome.COMMITTED));
        assertEquals(List.of(), check());
    }

    @Test
    void aCommitWithAnOlderTokenAfterANewerOneIsAStaleCommitWithBothInTheCounterExample_C4() {
        Op newer = op(2, Op.Outcome.COMMITTED);
        commit(op(1, Op.Outcome.COMMITTED));
        commit(newer);
        Op stale = op(1, Op.Outcome.COMMITTED);
        logRows.put(stale.id, new FinalState.LogRow(stale.id, ++pos, 1));
        Checker.Violation violation = only("C4");
        String text = violation.toString();
        assertTrue(text.indexOf("high-water mark 1 -> 2") < text.indexOf("op#" + newer.id)
                && text.indexOf("op#" + newer.id) < text.indexOf("stale: op#" + stale.id), text);
    }

    @Test
    void anAcknowledgedCommitMissingFromTheDatabaseIsReported_C3() {
        Op lost = op(1, Op.Outcome.COMMITTED);
        assertTrue(only("C3").summary().contains("op#" + lost.id + " was acknowledged"));
    }

    @Test
    void aRefusedOperationThatLeftItsLogRowIsReported_C3() {
        commit(op(2, Op.Outcome.COMMITTED));
        Op refused = op(2, Op.Outcome.REFUSED);
        refused.reportedMark = 3;
        raise(3);
        logRows.put(refused.id, new FinalState.LogRow(refused.id, ++pos, 2));
        List<Checker.Violation> violations = check();
        assertTrue(violations.stream().anyMatch(v -> v.summary().contains("op#" + refused.id + " ended REFUSED but"
                + " left its log row")), violations.toString());
    }

    @Test
    void anUpdateOfAFailedTransactionLeftInADataRowIsReported_C3() {
        commit(op(1, Op.Outcome.COMMITTED, 5));
        Op failed = op(1, Op.Outcome.FAILED, 5);
        data.put(5, new FinalState.Row(5, 2, failed.id));
        Checker.Violation violation = only("C3");
        assertTrue(violation.summary().contains("data row 5"), violation.toString());
        assertTrue(violation.counterExample().get(0).contains("op#" + failed.id), violation.toString());
    }

    @Test
    void aTransactionWithOnlySomeOfItsItemRowsIsReported_C3() {
        Op op = history.newOp(1, 1, Op.Shape.TRANSACTION, new int[0], 3, -1, "test");
        op.end(Op.Outcome.UNKNOWN, "08006", "connection lost at commit");
        commit(op);
        items.put(op.id, 2);
        assertTrue(only("C3").summary().contains("only partly there"));
    }

    @Test
    void aMarkThatWentDownIsReported_C2() {
        commit(op(3, Op.Outcome.COMMITTED));
        marks.add(new FinalState.MarkChange(++pos, 3, 2, Micros.now()));
        mark = 2;
        assertTrue(check().stream().anyMatch(v -> v.summary().contains("decreased")), check().toString());
    }

    @Test
    void aStaleRefusalBeforeAnyNewerTokenWasCommittedIsReported_C2() {
        commit(op(1, Op.Outcome.COMMITTED));
        Op refused = op(1, Op.Outcome.REFUSED);
        refused.reportedMark = 2;
        refused.endedAtMicros = Micros.now() - 10_000_000;
        raise(2);
        assertTrue(only("C2").summary().contains("refused as stale while its token 1 was current"));
    }

    @Test
    void aCommitAboveTheMarkThatDidNotRaiseItIsReported_C2() {
        commit(op(1, Op.Outcome.COMMITTED));
        Op above = op(5, Op.Outcome.COMMITTED);
        logRows.put(above.id, new FinalState.LogRow(above.id, ++pos, 5));
        assertTrue(only("C2").summary().contains("without raising it"));
    }

    @Test
    void aStatementTriggerThatFiredForARefusedStatementOrTwiceForOneIsReported_C8() {
        commit(op(2, Op.Outcome.COMMITTED, 1, 2));
        op(1, Op.Outcome.REFUSED, 3).reportedMark = 2;
        statements++;
        assertTrue(only("C8").summary().contains("fired 3 times"));
    }
}
