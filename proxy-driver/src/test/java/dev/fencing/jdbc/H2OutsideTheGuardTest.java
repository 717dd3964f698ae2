package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * SPEC C10 on H2: a Java function that takes a {@code Connection} can commit the guard's transaction through it, so
 * its calls are refused whatever the token; SQL the URL makes H2 run at connect ({@code INIT}) is refused at connect.
 * The judge is a raw connection.
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
     * A user function that commits the guard's transaction through its connection, lets a new owner take over, and
     * then writes with the stale token's session.
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

    /** A user function that gets no connection. */
    public static int twice(int x) {
        return 2 * x;
    }

    @BeforeEach
    void createData() throws SQLException {
        raw = TestDatabase.H2.rawUrl();
        table = TestDatabase.unique("outside");
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100)",
                "CREATE ALIAS HAND_OVER FOR '" + H2OutsideTheGuardTest.class.getName() + ".handOver'",
                "CREATE ALIAS TWICE FOR '" + H2OutsideTheGuardTest.class.getName() + ".twice'",
                "CREATE ALIAS FROM_SOURCE AS 'int f(java.sql.Connection c, int x) throws Exception { c.commit();"
                        + " return x; }'");
        judge = DriverManager.getConnection(raw);
        try (Connection c = connect(MARK); Statement s = c.createStatement()) {
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

    private Connection connect(long token) throws SQLException {
        return DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resource=" + resource, "fencing.token=" + token));
    }

    private int balance() throws SQLException {
        try (Statement s = judge.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM " + table + " WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aFunctionThatTakesAConnectionIsRefusedWhateverTheToken_C10() throws Exception {
        for (String sql : new String[] {"SELECT HAND_OVER(999)", "select hand_over(999) FROM " + table,
            "UPDATE " + table + " SET balance = HAND_OVER(999)", "CALL HAND_OVER(999)", "SELECT FROM_SOURCE(1)",
            "SET @x = PUBLIC.HAND_OVER(999)"}) {
            try (Connection c = connect(MARK); Statement s = c.createStatement()) {
                SQLException refused = assertThrows(SQLException.class, () -> s.execute(sql),
                        () -> sql + " ran with the current token");
                assertEquals(FencingSqlState.CANNOT_GUARD, refused.getSQLState(), () -> sql + ": " + refused);
            }
            assertEquals(100, balance(), () -> sql + " wrote after the new owner's mark");
        }
        try (Connection c = connect(MARK); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT TWICE(21)")) {
            rs.next();
            assertEquals(42, rs.getInt(1), "a function without a Connection still runs with the current token");
        }
    }

    @Test
    void initInTheUrlIsRefusedAtConnect_C10() throws Exception {
        for (String init : new String[] {"INIT=UPDATE " + table + " SET balance = 0",
            "init=SET @x = 1\\;UPDATE " + table + " SET balance = 0"}) {
            SQLException refused = assertThrows(SQLException.class, () -> DriverManager.getConnection(
                    TestDatabase.fenced(raw, "fencing.resource=" + resource, init)).close(), init);
            assertEquals(FencingSqlState.CONFIGURATION, refused.getSQLState(), refused::toString);
            org.junit.jupiter.api.Assertions.assertTrue(refused.getMessage().contains(init.substring(0, 4)),
                    refused::getMessage);
            assertEquals(100, balance(), init);
        }
        java.util.Properties info = new java.util.Properties();
        info.setProperty("Init", "UPDATE " + table + " SET balance = 0");
        info.setProperty("fencing.resource", resource);
        SQLException refused = assertThrows(SQLException.class, () -> DriverManager.getConnection(
                TestDatabase.fenced(raw), info).close());
        assertEquals(FencingSqlState.CONFIGURATION, refused.getSQLState(), refused::toString);
        assertEquals(100, balance());
    }
}
