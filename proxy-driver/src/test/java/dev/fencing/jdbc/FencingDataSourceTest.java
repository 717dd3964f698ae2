package dev.fencing.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FencingDataSource} under HikariCP (SPEC C5): its settings are fixed once it has handed out a connection,
 * so a pool never holds connections of two modes at once, and a change that could reach only some of them is
 * refused with a clear message instead of being half applied.
 */
class FencingDataSourceTest {
    @Test
    void aLivePoolCannotBeSwitchedFromAuditToEnforce_C5() throws Exception {
        String raw = TestDatabase.H2.rawUrl();
        String table = TestDatabase.unique("pooled");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT)");
        FencingDataSource fenced = new FencingDataSource();
        fenced.setUrl(TestDatabase.fenced(raw, "fencing.schema=create", "fencing.resource=pool",
                "fencing.audit.file=target/fencing-audit.json"));
        fenced.setProperty("fencing.mode", "enforce");
        fenced.setProperty("fencing.mode", "audit");   // before the first connection, settings may change
        HikariConfig config = new HikariConfig();
        config.setDataSource(fenced);
        config.setMaximumPoolSize(2);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                assertEquals(1, s.executeUpdate("INSERT INTO " + table + " VALUES (1)"), "audit mode runs it");
            }
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> fenced.setProperty("fencing.mode", "enforce"));
            assertTrue(refused.getMessage().contains("fencing.mode")
                    && refused.getMessage().contains("new data source"), refused.getMessage());
            assertThrows(IllegalStateException.class, () -> fenced.setToken("5"));
            assertThrows(IllegalStateException.class, () -> fenced.setUrl(raw));
            pool.getHikariPoolMXBean().softEvictConnections();
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                assertEquals(1, s.executeUpdate("INSERT INTO " + table + " VALUES (2)"),
                        "every connection, old or new, keeps the one mode the pool started with");
            }
        }
        assertEquals(2, count(raw, table));
    }

    private static long count(String raw, String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
