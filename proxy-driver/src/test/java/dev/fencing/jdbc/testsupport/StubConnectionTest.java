package dev.fencing.jdbc.testsupport;

import org.junit.jupiter.api.Test;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stubs the unit tests rely on record and answer as they say, so a test over them cannot pass by accident. */
class StubConnectionTest {
    @Test
    void aRecordingConnectionKeepsEveryTextAndEveryExecutionsParameters() throws SQLException {
        StubConnection c = StubConnection.recording("PostgreSQL");
        Statement s = c.createStatement();
        s.executeUpdate("UPDATE a");
        s.addBatch("INSERT b");
        s.addBatch("DELETE c");
        assertArrayEquals(new int[] {1, 1}, s.executeBatch());
        StubPreparedStatement ps = c.prepareStatement("UPDATE t SET v = ? WHERE id = ?");
        ps.setInt(1, 7);
        ps.setNull(2, java.sql.Types.INTEGER);
        ps.executeUpdate();
        ps.setString(2, "x");
        ps.addBatch();
        ps.clearParameters();
        ps.executeBatch();
        assertEquals(List.of("UPDATE a", "INSERT b", "DELETE c", ps.sql(), ps.sql()), c.sent());
        assertEquals(List.of(Map.of(1, 7, 2, StubPreparedStatement.NULL), Map.of(1, 7, 2, "x")), ps.executions());
    }

    @Test
    void statementsAnswerWhatTheScriptSays() throws SQLException {
        SQLException refused = new SQLException("no", "42501");
        StubConnection c = StubConnection.recording("MariaDB").answering(sql -> sql.startsWith("SELECT")
                ? Answer.rows(new Object[] {"a", null}, new Object[] {"b", 2L})
                : sql.startsWith("DROP") ? Answer.fail(refused) : Answer.count(3));
        Statement s = c.createStatement();
        assertEquals(3, s.executeUpdate("UPDATE x"));
        assertFalse(s.execute("UPDATE x"));
        assertEquals(3, s.getUpdateCount());
        assertSame(refused, assertThrows(SQLException.class, () -> s.execute("DROP x")));
        assertTrue(s.execute("SELECT x"));
        ResultSet rs = s.getResultSet();
        assertTrue(rs.next());
        assertEquals("a", rs.getString(1));
        assertNull(rs.getObject(2));
        assertTrue(rs.wasNull());
        assertTrue(rs.next());
        assertEquals(2, rs.getInt(2));
        assertFalse(rs.next());
        assertEquals(-1, s.getUpdateCount());
    }

    @Test
    void byDefaultUpdatesChangeOneRowAndQueriesReturnOneRowOfOnes() throws SQLException {
        StubConnection c = StubConnection.quiet("PostgreSQL");
        assertEquals("PostgreSQL", c.getMetaData().getDatabaseProductName());
        assertEquals(1, c.prepareStatement("UPDATE x").executeUpdate());
        ResultSet rs = c.createStatement().executeQuery("SELECT a, b");
        assertThrows(SQLException.class, () -> rs.getLong(1), "not on a row yet");
        assertTrue(rs.next());
        assertEquals(1L, rs.getLong(1));
        assertEquals("t1", rs.getString(2));
        assertFalse(rs.next());
        assertThrows(IllegalStateException.class, c::sent, "a quiet connection records nothing");
    }

    @Test
    void unwrapFindsTheConnectionAndWhatItWraps() throws SQLException {
        StubConnection c = StubConnection.recording("H2").wrapping(new StringBuilder("vendor"));
        assertTrue(c.isWrapperFor(CharSequence.class));
        assertEquals("vendor", c.unwrap(CharSequence.class).toString());
        assertSame(c, c.unwrap(StubConnection.class));
        assertFalse(c.isWrapperFor(Number.class));
        assertThrows(SQLException.class, () -> c.unwrap(Number.class));
    }
}
