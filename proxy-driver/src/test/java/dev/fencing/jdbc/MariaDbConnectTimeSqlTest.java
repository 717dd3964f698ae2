package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * SPEC C10 on MariaDB, through both connectors: SQL the underlying driver runs while it connects ({@code initSql},
 * {@code sessionVariables}, whose values may call a stored function) is refused at connect with {@code ZF006}, before
 * anything reaches the server. The judge is a raw connection.
 */
@RequiresMariaDb
class MariaDbConnectTimeSqlTest {
    private String table;
    private String judgeUrl;

    @BeforeEach
    void createData() throws SQLException {
        judgeUrl = TestDatabase.MARIADB.rawUrl();
        table = TestDatabase.unique("connect");
        TestDatabase.exec(judgeUrl, "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT NOT NULL) ENGINE=InnoDB",
                "INSERT INTO " + table + " VALUES (1, 100)",
                "CREATE FUNCTION " + table + "_w() RETURNS INT MODIFIES SQL DATA BEGIN UPDATE " + table
                        + " SET balance = 0; RETURN 1; END");
    }

    @AfterEach
    void dropData() throws SQLException {
        TestDatabase.dropNamed(judgeUrl, table);
    }

    private int balance() throws SQLException {
        try (Connection c = DriverManager.getConnection(judgeUrl); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM " + table)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private void assertRefusedAtConnect(String url, Properties info, String what) throws SQLException {
        SQLException refused = assertThrows(SQLException.class, () -> DriverManager.getConnection(url, info).close(),
                what);
        assertEquals(FencingSqlState.CONFIGURATION, refused.getSQLState(), () -> what + ": " + refused);
        assertEquals(100, balance(), what + " ran SQL at connect");
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "MYSQL"})
    void sqlTheDriverRunsAtConnectIsRefused_C10(TestDatabase database) throws Exception {
        String raw = database.rawUrl();
        String update = "UPDATE " + table + " SET balance = 0";
        String call = "@x=" + table + "_w()";
        Properties none = new Properties();
        if (database == TestDatabase.MARIADB) {
            assertRefusedAtConnect(TestDatabase.fenced(raw, "initSql=" + encode(update)), none, "initSql");
        }
        assertRefusedAtConnect(TestDatabase.fenced(raw, "sessionVariables=" + encode(call)), none, "sessionVariables");
        assertRefusedAtConnect(TestDatabase.fenced(raw, "SESSIONVARIABLES=" + encode(call)), none,
                "sessionVariables in another case");
        Properties info = new Properties();
        info.setProperty(database == TestDatabase.MARIADB ? "initSql" : "sessionVariables",
                database == TestDatabase.MARIADB ? update : call);
        assertRefusedAtConnect(TestDatabase.fenced(raw), info, "as a driver property");
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
