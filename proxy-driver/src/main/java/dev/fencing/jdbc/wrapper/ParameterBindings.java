package dev.fencing.jdbc.wrapper;

import dev.fencing.jdbc.audit.SqlStates;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * The parameters a caller set on a fenced prepared statement, kept so they can be applied to whichever guarded
 * form of the statement runs, at the positions that form gives them.
 */
final class ParameterBindings {
    /** One {@code setXxx} call, replayed at another index. */
    interface Binding {
        void apply(PreparedStatement statement, int index) throws SQLException;
    }

    /** Maps a caller's 1-based parameter index to the index in the statement that runs. */
    interface IndexMap {
        int actual(int userIndex);
    }

    private Binding[] bindings = new Binding[8];
    private boolean[] oneShot = new boolean[8];
    private int highest;

    void set(int index, boolean streamed, Binding binding) throws SQLException {
        if (index < 1) {
            throw new SQLException("The parameter index " + index + " is out of range.", SqlStates.INVALID_PARAMETER);
        }
        if (index > bindings.length) {
            int size = Math.max(index, bindings.length * 2);
            bindings = Arrays.copyOf(bindings, size);
            oneShot = Arrays.copyOf(oneShot, size);
        }
        bindings[index - 1] = binding;
        oneShot[index - 1] = streamed;
        highest = Math.max(highest, index);
    }

    /** Whether a parameter is a stream, which can be read only once: such a statement must run only once. */
    boolean hasStreams() {
        for (int i = 0; i < highest; i++) {
            if (oneShot[i]) {
                return true;
            }
        }
        return false;
    }

    void applyTo(PreparedStatement statement, IndexMap map) throws SQLException {
        for (int i = 0; i < highest; i++) {
            Binding binding = bindings[i];
            if (binding != null) {
                binding.apply(statement, map.actual(i + 1));
            }
        }
    }

    void clear() {
        Arrays.fill(bindings, 0, highest, null);
        Arrays.fill(oneShot, 0, highest, false);
        highest = 0;
    }
}
