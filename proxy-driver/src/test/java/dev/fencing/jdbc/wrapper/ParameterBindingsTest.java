package dev.fencing.jdbc.wrapper;

import dev.fencing.jdbc.testsupport.StubConnection;
import dev.fencing.jdbc.testsupport.StubPreparedStatement;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The caller's parameters, replayed onto whichever form of the statement runs, at the positions it gives them. */
class ParameterBindingsTest {
    private final StubConnection connection = StubConnection.recording("PostgreSQL");

    private static ParameterBindings.Binding string(String value) {
        return (statement, index) -> statement.setString(index, value);
    }

    private Map<Integer, Object> applied(ParameterBindings bindings, ParameterBindings.IndexMap map)
            throws SQLException {
        StubPreparedStatement statement = connection.prepareStatement("UPDATE t SET a = ? WHERE b = ?");
        bindings.applyTo(statement, map);
        statement.executeUpdate();
        return statement.executions().get(0);
    }

    @Test
    void parametersAreAppliedAtTheIndexTheRunningFormGivesThem() throws SQLException {
        ParameterBindings bindings = new ParameterBindings();
        bindings.set(1, false, string("a"));
        bindings.set(2, false, string("b"));
        assertEquals(Map.of(1, "a", 2, "b"), applied(bindings, index -> index));
        assertEquals(Map.of(3, "a", 4, "b"), applied(bindings, index -> index + 2), "behind a guard of two parameters");
    }

    @Test
    void setAgainReplacesAndUnsetIndexesAreLeftForTheDriverToRefuse() throws SQLException {
        ParameterBindings bindings = new ParameterBindings();
        bindings.set(3, false, string("old"));
        bindings.set(3, false, string("new"));
        bindings.set(1, false, string("first"));
        assertEquals(Map.of(1, "first", 3, "new"), applied(bindings, index -> index));
    }

    @Test
    void indexesBeyondTheFirstEightGrowTheTable() throws SQLException {
        ParameterBindings bindings = new ParameterBindings();
        bindings.set(20, false, string("twenty"));
        bindings.set(9, true, string("nine"));
        assertEquals(Map.of(9, "nine", 20, "twenty"), applied(bindings, index -> index));
        assertTrue(bindings.hasStreams());
    }

    @Test
    void anIndexBelowOneIsAClearError() {
        ParameterBindings bindings = new ParameterBindings();
        SQLException e = assertThrows(SQLException.class, () -> bindings.set(0, false, string("x")));
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().contains("0"), e.getMessage());
    }

    @Test
    void aStreamMakesTheStatementOneShotUntilCleared() throws SQLException {
        ParameterBindings bindings = new ParameterBindings();
        bindings.set(1, false, string("a"));
        assertFalse(bindings.hasStreams());
        bindings.set(2, true, string("stream"));
        assertTrue(bindings.hasStreams());
        bindings.set(2, false, string("plain again"));
        assertFalse(bindings.hasStreams(), "a stream replaced by a plain value is no longer one-shot");
        bindings.set(2, true, string("stream"));
        bindings.clear();
        assertFalse(bindings.hasStreams());
        assertEquals(Map.of(), applied(bindings, index -> index), "cleared parameters are not replayed");
        bindings.set(1, false, string("after"));
        assertEquals(List.of(Map.of(1, "after")), List.of(applied(bindings, index -> index)));
    }
}
