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

    /**
     * Modes that let the connector open a new server session under an open connection (fail-over, load balancing,
     * reconnects, transaction replay) are refused at connect: the fence makes each session read-only when it
     * connects and would not see a new one (found by review: after a killed session, a hidden write through a
     * view landed under every one of them).
     */
    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "MYSQL"})
    void modesThatReplaceTheServerSessionAreRefused_C10(TestDatabase database) throws Exception {
        String raw = database.rawUrl();
        String scheme = database == TestDatabase.MARIADB ? "jdbc:mariadb:" : "jdbc:mysql:";
        String afterSlashes = raw.substring(scheme.length() + 2);
        String host = afterSlashes.substring(0, afterSlashes.indexOf('/'));
        String rest = afterSlashes.substring(host.length());
        Properties none = new Properties();
        java.util.List<String> urls = new java.util.ArrayList<>(java.util.List.of(
                scheme + "loadbalance://" + host + rest, scheme + "replication://" + host + "," + host + rest,
                scheme + "//" + host + "," + host + rest));
        if (database == TestDatabase.MARIADB) {
            urls.addAll(java.util.List.of(scheme + "sequential://" + host + rest, raw + "&transactionReplay=true"));
        } else {
            urls.addAll(java.util.List.of(scheme + "//[" + host + "," + host + "]" + rest, raw + "&autoReconnect=true",
                    raw + "&AUTORECONNECT=yes", "jdbc:mysql+srv://" + host + rest, raw + "&useConfigs=clusterBase",
                    raw + "&useConfigs=fullDebug,clusterBase", raw + "&propertiesTransform=com.example.T"));
        }
        for (String url : urls) {
            assertRefusedAtConnect(TestDatabase.fenced(url), none, url);
        }
        Properties reconnect = new Properties();
        reconnect.setProperty(database == TestDatabase.MARIADB ? "transactionReplay" : "autoReconnectForPools", "true");
        assertRefusedAtConnect(TestDatabase.fenced(raw), reconnect, "as a driver property");
        Properties off = new Properties();
        off.setProperty(database == TestDatabase.MARIADB ? "transactionReplay" : "autoReconnect", "false");
        DriverManager.getConnection(TestDatabase.fenced(raw), off).close();

        // One host, no reconnect: a killed session stays dead, and nothing reaches the server without the fence.
        TestDatabase.exec(judgeUrl, "CREATE VIEW " + table + "_v AS SELECT " + table + "_w() AS x");
        try (Connection fenced = DriverManager.getConnection(TestDatabase.fenced(raw));
             Statement s = fenced.createStatement()) {
            long id;
            try (ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
                rs.next();
                id = rs.getLong(1);
            }
            TestDatabase.exec(judgeUrl, "KILL CONNECTION " + id);
            for (int i = 0; i < 3; i++) {
                assertThrows(SQLException.class, () -> s.executeQuery("SELECT * FROM " + table + "_v").close());
            }
        }
        assertEquals(100, balance());
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
