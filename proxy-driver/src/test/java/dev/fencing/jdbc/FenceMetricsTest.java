package dev.fencing.jdbc;

import dev.fencing.jdbc.audit.Refusals;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An operator's view: after guarded writes, an epoch advance and refusals, the resource's MBean in the platform
 * MBeanServer holds the counts the database agrees with, and the {@code dev.fencing.jdbc} logger has a line for
 * the advance and for each refusal (values never shown).
 */
class FenceMetricsTest {
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(new java.util.logging.SimpleFormatter().formatMessage(record));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    /** Held here: java.util.logging keeps loggers only weakly, and a collected one would forget the handler. */
    private final Logger driverLogger = Logger.getLogger("dev.fencing.jdbc");
    private String raw;
    private String resource;

    @BeforeEach
    void setUp() throws SQLException {
        raw = TestDatabase.H2.rawUrl();
        resource = TestDatabase.unique("metrics");
        TestDatabase.exec(raw, "CREATE TABLE account (id INT PRIMARY KEY, balance INT NOT NULL)",
                "INSERT INTO account VALUES (1, 0)");
        driverLogger.addHandler(capture);
    }

    @AfterEach
    void tearDown() throws SQLException {
        driverLogger.removeHandler(capture);
        TestDatabase.exec(raw, "DROP ALL OBJECTS");
    }

    @Test
    void theMBeanCountsGuardedWritesAdvancesAndRefusalsBySqlState() throws Exception {
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resource=" + resource)); Statement s = c.createStatement()) {
            FencedConnection fenced = c.unwrap(FencedConnection.class);
            fenced.setFencingToken(1);
            assertEquals(1, s.executeUpdate("UPDATE account SET balance = 10 WHERE id = 1"));
            fenced.setFencingToken(2);
            assertEquals(1, s.executeUpdate("UPDATE account SET balance = 20 WHERE id = 1"));
            fenced.setFencingToken(1);
            assertEquals(FencingSqlState.STALE_TOKEN, assertThrows(FencingRefusedException.class,
                    () -> s.executeUpdate("UPDATE account SET balance = 99 WHERE id = 1")).getSQLState());
            fenced.clearFencingToken();
            assertEquals(FencingSqlState.INVALID_TOKEN, assertThrows(FencingRefusedException.class,
                    () -> s.executeUpdate("UPDATE account SET balance = 98 WHERE id = 1")).getSQLState());
        }
        assertEquals(20, balance(), "the database has the token-2 write and no refused one");

        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("dev.fencing:type=Fence,resource=" + resource);
        assertEquals(resource, server.getAttribute(name, "Resource"));
        assertEquals(2L, server.getAttribute(name, "MutationsGuarded"));
        assertEquals(1L, server.getAttribute(name, "EpochAdvances"));
        assertEquals(2L, server.getAttribute(name, "Refusals"));
        assertEquals(2L, server.getAttribute(name, "CurrentMark"));
        FenceMXBean fence = JMX.newMXBeanProxy(server, name, FenceMXBean.class);
        assertEquals(Map.of(FencingSqlState.INVALID_TOKEN, 1L, FencingSqlState.STALE_TOKEN, 1L),
                fence.getRefusalsBySqlState());

        assertTrue(logged.contains("fencing: resource '" + resource + "' advanced to epoch 2 (was 1)"), logged::toString);
        assertTrue(logged.stream().anyMatch(line -> line.startsWith("fencing: refused resource=" + resource
                + " token=1 mark=2 sqlState=ZF002 ") && line.endsWith(" statement=UPDATE account SET balance = ?"
                + " WHERE id = ?")), logged::toString);
        assertTrue(logged.stream().anyMatch(line -> line.startsWith("fencing: refused resource=" + resource
                + " token=none mark=unknown sqlState=ZF001 ")), logged::toString);
        assertTrue(logged.stream().filter(line -> line.contains("statement="))
                .map(line -> line.substring(line.indexOf("statement=")))
                .noneMatch(statement -> statement.contains("99") || statement.contains("98")), logged::toString);
    }

    private int balance() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM account WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
