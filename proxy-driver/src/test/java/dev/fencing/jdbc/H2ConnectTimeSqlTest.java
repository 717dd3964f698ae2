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

/** SPEC C10 on H2: SQL the URL makes H2 run at connect ({@code INIT}) is refused at connect. The judge is a raw connection. */
class H2ConnectTimeSqlTest {
    private String raw;
    private String table;
    private String resource;
    private Connection judge;

    @BeforeEach
    void createData() throws SQLException {
        raw = TestDatabase.H2.rawUrl();
        table = TestDatabase.unique("outside");
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100)");
        judge = DriverManager.getConnection(raw);
    }

    @AfterEach
    void dropData() throws SQLException {
        judge.close();
        TestDatabase.dropNamed(raw, table);
    }

    private int balance() throws SQLException {
        try (Statement s = judge.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM " + table + " WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
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
