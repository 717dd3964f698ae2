package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * SPEC C10 on H2: a Java function that gets the session's {@code Connection} (a parameter of its method, a user
 * aggregate's {@code init}, or {@code jdbc:default:connection} where the database allows it) can commit the guard's
 * transaction through it, let a new owner advance the mark, and write on: its calls are refused whatever the token.
 * Functions that get no connection still run. The judge is a raw connection.
 */
public class H2OutsideTheGuardTest {
    private static final long MARK = 7;
    /** The URL through which {@link #handOver} plays the new owner. */
    private static volatile String newOwner;
    private static volatile String handedOverTable;

    private String raw;
    private String table;
    private String resource;
    private Connection judge;

    /**
     * Commits the guard's transaction through {@code c}, lets a new owner take over (a guarded write with the next
     * token, which advances the mark), then writes {@code amount} with the stale token's session.
     */
    public static int handOver(Connection c, int amount) throws SQLException {
        c.commit();
        try (Connection owner = DriverManager.getConnection(newOwner); Statement s = owner.createStatement()) {
            s.executeUpdate("UPDATE " + handedOverTable + " SET balance = balance WHERE id = 1");
        }
        try (Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + handedOverTable + " SET balance = " + amount);
        }
        return amount;
    }

    /** {@link #handOver} with the connection H2 hands out as {@code jdbc:default:connection}. */
    public static int handOverByDefault(int amount) throws SQLException {
        return handOver(DriverManager.getConnection("jdbc:default:connection"), amount);
    }

    /** How often {@link #twice} ran. */
    private static final AtomicInteger TWICE_CALLS = new AtomicInteger();

    /** A user function that gets no connection. */
    public static int twice(int x) {
        TWICE_CALLS.incrementAndGet();
        return 2 * x;
    }

    /** A user aggregate whose {@code init} hands over, like {@link #handOver}. */
    public static final class HandOverAggregate implements org.h2.api.AggregateFunction {
        @Override
        public void init(Connection c) throws SQLException {
            handOver(c, 999);
        }

        @Override
        public int getType(int[] inputTypes) {
            return Types.INTEGER;
        }

        @Override
        public void add(Object value) {
        }

        @Override
        public Object getResult() {
            return 0;
        }
    }

    @BeforeEach
    void createData() throws SQLException {
        open(TestDatabase.H2.rawUrl());
    }

    private void open(String url) throws SQLException {
        raw = url;
        table = TestDatabase.unique("outside");
        resource = TestDatabase.unique("res");
        String self = H2OutsideTheGuardTest.class.getName();
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100)",
                "CREATE ALIAS HAND_OVER FOR '" + self + ".handOver'",
                "CREATE ALIAS HAND_OVER_BY_DEFAULT FOR '" + self + ".handOverByDefault'",
                "CREATE ALIAS TWICE FOR '" + self + ".twice'",
                "CREATE AGGREGATE HAND_OVER_AGG FOR '" + HandOverAggregate.class.getName() + "'",
                "CREATE ALIAS FROM_SOURCE AS 'int f(java.sql.Connection c, int x) throws Exception { c.commit();"
                        + " return x; }'");
        judge = DriverManager.getConnection(raw);
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET balance = balance WHERE id = 1");
        }
        newOwner = TestDatabase.fenced(raw, "fencing.resource=" + resource, "fencing.token=" + (MARK + 1));
        handedOverTable = table;
    }

    @AfterEach
    void dropData() throws SQLException {
        judge.close();
        TestDatabase.dropNamed(raw, table);
    }

    /** A fenced connection holding the current token. */
    private Connection connect() throws SQLException {
        return DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resource=" + resource, "fencing.token=" + MARK));
    }

    /** The balance and the mark, read by the judge. */
    private String state() throws SQLException {
        try (Statement s = judge.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance, (SELECT epoch FROM fencing_epoch WHERE resource = '"
                     + resource + "') FROM " + table + " WHERE id = 1")) {
            rs.next();
            return "balance=" + rs.getInt(1) + " mark=" + rs.getLong(2);
        }
    }

    private interface Attempt {
        void run(Connection c) throws Exception;
    }

    private void assertRefusedWithTheCurrentToken(String what, Attempt attempt) throws Exception {
        for (boolean inTransaction : new boolean[] {false, true}) {
            String before = state();
            try (Connection c = connect()) {
                c.setAutoCommit(!inTransaction);
                SQLException refused = assertThrows(SQLException.class, () -> attempt.run(c),
                        () -> what + " ran with the current token");
                assertEquals(FencingSqlState.CANNOT_GUARD, refused.getSQLState(), () -> what + ": " + refused);
            }
            assertEquals(before, state(), () -> what + " committed, a new owner took over, and it wrote on");
        }
    }

    @Test
    void aFunctionThatTakesAConnectionIsRefusedWhateverTheToken_C10() throws Exception {
        for (String sql : List.of("SELECT HAND_OVER(999)", "select hand_over(999) FROM " + table,
                "UPDATE " + table + " SET balance = HAND_OVER(999)", "CALL HAND_OVER(999)", "SELECT FROM_SOURCE(1)",
                "SET @x = PUBLIC.HAND_OVER(999)", "SELECT HAND_OVER_AGG(balance) FROM " + table)) {
            assertRefusedWithTheCurrentToken(sql, c -> c.createStatement().execute(sql));
            assertRefusedWithTheCurrentToken("prepared " + sql, c -> c.prepareStatement(sql).execute());
        }
        assertRefusedWithTheCurrentToken("{? = call hand_over(?)}", c -> {
            CallableStatement cs = c.prepareCall("{? = call HAND_OVER(?)}");
            cs.registerOutParameter(1, Types.INTEGER);
            cs.setInt(2, 999);
            cs.execute();
        });
        assertEquals("balance=100 mark=" + MARK, state());
    }

    @Test
    void aFunctionThatTakesNoConnectionRunsOnceWithTheCurrentTokenAndTheRawDriversResult_C10() throws Exception {
        String sql = "SELECT TWICE(21), TWICE(balance) FROM " + table;
        List<Integer> direct;
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            direct = List.of(rs.getInt(1), rs.getInt(2));
        }
        int before = TWICE_CALLS.get();
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            assertEquals(direct, List.of(rs.getInt(1), rs.getInt(2)));
        }
        assertEquals(List.of(42, 200), direct);
        assertEquals(2, TWICE_CALLS.get() - before, "each call ran once through the fence");
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.resource=" + resource));
             Statement s = c.createStatement()) {
            assertEquals(FencingSqlState.INVALID_TOKEN, assertThrows(SQLException.class,
                    () -> s.executeQuery(sql)).getSQLState(), "a user function still needs a token");
        }
        assertEquals("balance=100 mark=" + MARK, state());
    }

    @Test
    void whereTheDatabaseHandsOutItsDefaultConnectionEveryJavaFunctionIsRefused_C10() throws Exception {
        dropData();
        open(TestDatabase.H2.rawUrl() + ";DEFAULT_CONNECTION=TRUE");
        for (String sql : List.of("SELECT HAND_OVER_BY_DEFAULT(999)", "SELECT TWICE(21)")) {
            assertRefusedWithTheCurrentToken(sql, c -> c.createStatement().execute(sql));
        }
        assertEquals("balance=100 mark=" + MARK, state());
    }
}
