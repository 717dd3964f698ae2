package dev.fencing.torture;

import java.util.Arrays;

/**
 * One operation of a torture history: which owner ran it with which token, what it planned to change, and how it
 * ended. Written by the one thread that runs it; read by the checker after every thread has finished.
 */
final class Op {
    /** How the operation reaches the database. */
    enum Shape {
        /** One {@code INSERT} of its log row in autocommit. */
        AUTOCOMMIT_INSERT,
        /** One {@code UPDATE} of a slot row in autocommit; a trigger writes the log row. */
        AUTOCOMMIT_UPDATE,
        /** An explicit transaction: data updates, an item batch, then the log row, then {@code commit()}. */
        TRANSACTION
    }

    /** How it ended, as the client saw it. */
    enum Outcome {
        /** Still running (never left in a finished history) or cut off by a killed process. */
        PENDING,
        /** {@code commit()} (or the autocommit statement) returned normally: it must be in the database. */
        COMMITTED,
        /** A fencing refusal (SQLState {@code ZF...}): it must have left nothing. */
        REFUSED,
        /** An error before anything could commit: it must have left nothing. */
        FAILED,
        /** An error where the commit may or may not have happened (connection lost at commit time). */
        UNKNOWN
    }

    final long id;
    final int owner;
    final long token;
    final Shape shape;
    /** Data rows updated by a transaction, in order (may repeat). */
    final int[] dataIds;
    /** Item rows inserted by a transaction. */
    final int items;
    /** The slot updated by {@link Shape#AUTOCOMMIT_UPDATE}, else -1. */
    final int slot;
    final String how;
    private final long origin;
    private final StringBuilder timeline = new StringBuilder();
    Outcome outcome = Outcome.PENDING;
    String sqlState;
    String message;
    /** The high-water mark a refusal reported, or -1. */
    long reportedMark = -1;
    /** Wall-clock time (microseconds since the epoch) when the client learnt the outcome. */
    long endedAtMicros;

    Op(long id, int owner, long token, Shape shape, int[] dataIds, int items, int slot, String how, long origin) {
        this.id = id;
        this.owner = owner;
        this.token = token;
        this.shape = shape;
        this.dataIds = dataIds;
        this.items = items;
        this.slot = slot;
        this.how = how;
        this.origin = origin;
    }

    /** Appends a step to the timeline, stamped with the milliseconds since the run started. */
    void note(String step) {
        timeline.append("\n      +").append((System.nanoTime() - origin) / 1_000_000).append("ms ").append(step);
    }

    void end(Outcome newOutcome, String newSqlState, String newMessage) {
        outcome = newOutcome;
        sqlState = newSqlState;
        message = newMessage;
        endedAtMicros = Micros.now();
        note(newOutcome + (newSqlState == null ? "" : " " + newSqlState) + (newMessage == null ? "" : ": " + newMessage));
    }

    /** Whether the final state must contain this operation's effects, must not, or may either way. */
    boolean mustBePresent() {
        return outcome == Outcome.COMMITTED;
    }

    boolean mustBeAbsent() {
        return outcome == Outcome.REFUSED || outcome == Outcome.FAILED;
    }

    /** How many times it updates data row {@code id}. */
    int updatesOf(int dataId) {
        int n = 0;
        for (int each : dataIds) {
            if (each == dataId) {
                n++;
            }
        }
        return n;
    }

    String headline() {
        StringBuilder line = new StringBuilder("op#").append(id).append(" owner ").append(owner).append(" token ")
                .append(token).append(' ').append(shape).append(" via ").append(how);
        if (shape == Shape.TRANSACTION) {
            line.append(" updates ").append(Arrays.toString(dataIds)).append(" items ").append(items);
        } else if (shape == Shape.AUTOCOMMIT_UPDATE) {
            line.append(" slot ").append(slot);
        }
        line.append(": ").append(outcome);
        if (sqlState != null) {
            line.append(' ').append(sqlState);
        }
        if (reportedMark >= 0) {
            line.append(" (reported mark ").append(reportedMark).append(')');
        }
        return line.toString();
    }

    /** The headline and every step, for counter-examples. */
    String describe() {
        return headline() + timeline;
    }
}
