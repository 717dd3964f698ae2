package dev.fencing.jdbc;

import dev.fencing.jdbc.audit.Refusals;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An operator's view of one history (guarded writes, an epoch advance, a stale and a missing token), read three ways:
 * the resource's MBean in the platform MBeanServer, the {@code dev.fencing.jdbc} logger's lines (values never
 * shown), and Micrometer's meters (the global registry, and a registry bound with {@link FencingMeterBinder}); also
 * the epoch-lock wait measured with a real waiter, and the driver working in a class loader without Micrometer.
 */
class FenceMetricsTest {
    private LogCapture capture;
    private List<String> logged;
    private final SimpleMeterRegistry global = new SimpleMeterRegistry();
    private String raw;
    private String resource;

    @BeforeEach
    void setUp() throws SQLException {
        raw = TestDatabase.H2.rawUrl();
        resource = TestDatabase.unique("metrics");
        TestDatabase.exec(raw, "CREATE TABLE account (id INT PRIMARY KEY, balance INT NOT NULL)",
                "INSERT INTO account VALUES (1, 0)");
        capture = LogCapture.start();
        logged = capture.lines();
        Metrics.addRegistry(global);
    }

    @AfterEach
    void tearDown() throws SQLException {
        Metrics.removeRegistry(global);
        capture.close();
        TestDatabase.exec(raw, "DROP ALL OBJECTS");
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resource=" + resource));
    }

    /** Token 1 writes, token 2 writes (an advance), token 1 is refused as stale, no token is refused as missing. */
    private void twoEpochsAndTwoRefusals() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
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
    }

    @Test
    void aScopeOrSettingNamingAnotherResourceThanTheUrlPinsIsLoggedOnce_C11() throws SQLException {
        String other = resource + "-other";
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resource=" + resource, "fencing.resources=any")); Statement s = c.createStatement()) {
            try (Fencing.Scope ignored = Fencing.scope(other, 1)) {
                for (int i = 0; i < 3; i++) {
                    s.executeUpdate("UPDATE account SET balance = " + i + " WHERE id = 1");
                }
            }
            try (Fencing.Scope ignored = Fencing.scope(resource, 1)) {
                s.executeUpdate("UPDATE account SET balance = 5 WHERE id = 1");
            }
            s.execute("SET fencing.resource = '" + other + "x'");
        }
        List<String> lines = logged.stream().filter(l -> l.contains("pin resource")).toList();
        assertEquals(2, lines.size(), String.join("\n", logged));
        assertTrue(lines.get(0).contains("'" + resource + "'") && lines.get(0).contains("a Fencing.scope names '"
                + other + "'"), lines.get(0));
        assertTrue(lines.get(1).contains("SET fencing.resource names '" + other + "x'"), lines.get(1));
    }

    @Test
    void theMBeanCountsGuardedWritesAdvancesAndRefusalsBySqlState() throws Exception {
        twoEpochsAndTwoRefusals();

        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("dev.fencing:type=Fence,resource=" + resource);
        assertEquals(resource, server.getAttribute(name, "Resource"));
        assertEquals(2L, server.getAttribute(name, "MutationsGuarded"));
        assertEquals(1L, server.getAttribute(name, "EpochAdvances"));
        assertEquals(2L, server.getAttribute(name, "Refusals"));
        assertEquals(2L, server.getAttribute(name, "CurrentMark"));
        FenceMXBean fence = JMX.newMXBeanProxy(server, name, FenceMXBean.class);
        Map<String, Long> expected = new java.util.TreeMap<>();
        FencingSqlState.ALL.forEach(state -> expected.put(state, 0L));
        expected.put(FencingSqlState.INVALID_TOKEN, 1L);
        expected.put(FencingSqlState.STALE_TOKEN, 1L);
        assertEquals(expected, fence.getRefusalsBySqlState(), "all six of the fence's states, as operations.md says");

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

    @Test
    void theGlobalRegistryAndABoundOneCountWritesAdvancesAndRefusals_C2() throws Exception {
        twoEpochsAndTwoRefusals();
        SimpleMeterRegistry bound = new SimpleMeterRegistry();
        new FencingMeterBinder().bindTo(bound);
        for (SimpleMeterRegistry registry : new SimpleMeterRegistry[] {global, bound}) {
            assertEquals(2.0, registry.get("fencing.mutations.guarded").tag("resource", resource).functionCounter()
                    .count());
            assertEquals(1.0, registry.get("fencing.epoch.advances").tag("resource", resource).functionCounter()
                    .count());
            assertEquals(1.0, refusals(registry, FencingSqlState.STALE_TOKEN));
            assertEquals(1.0, refusals(registry, FencingSqlState.INVALID_TOKEN));
            assertEquals(0.0, refusals(registry, FencingSqlState.CANNOT_GUARD));
            assertEquals(2.0, registry.get("fencing.epoch.mark").tag("resource", resource).gauge().value());
            FunctionTimer lock = registry.get("fencing.epoch.lock").tag("resource", resource).functionTimer();
            assertTrue(lock.count() >= 2, "H2 locks the epoch row by a statement of its own: " + lock.count());
            assertTrue(lock.totalTime(TimeUnit.NANOSECONDS) > 0);
        }
    }

    private double refusals(SimpleMeterRegistry registry, String state) {
        return registry.get("fencing.refusals").tags("resource", resource, "sqlstate", state).functionCounter().count();
    }

    /** A writer of the new epoch waits while an advance holds the epoch row; the wait is in the lock time (C4). */
    @Test
    void timeWaitingBehindAnAdvanceIsCountedAsEpochLockWait_C4() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            c.unwrap(FencedConnection.class).setFencingToken(1);
            s.executeUpdate("UPDATE account SET balance = 1 WHERE id = 1");
        }
        ObjectName name = new ObjectName("dev.fencing:type=Fence,resource=" + resource);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        long before = (Long) server.getAttribute(name, "EpochLockWaitNanos");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection advancing = connect(); Statement s = advancing.createStatement()) {
            advancing.setAutoCommit(false);
            advancing.unwrap(FencedConnection.class).setFencingToken(2);
            s.executeUpdate("UPDATE account SET balance = 2 WHERE id = 1");
            CountDownLatch started = new CountDownLatch(1);
            Future<Integer> waiter = pool.submit(() -> {
                try (Connection c = connect(); Statement w = c.createStatement()) {
                    c.unwrap(FencedConnection.class).setFencingToken(2);
                    started.countDown();
                    return w.executeUpdate("UPDATE account SET balance = balance + 1 WHERE id = 1");
                }
            });
            started.await();
            Thread.sleep(600);
            assertFalse(waiter.isDone(), "the writer waits for the advance to commit");
            advancing.commit();
            assertEquals(1, waiter.get(10, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
        assertEquals(3, balance());
        long waited = (Long) server.getAttribute(name, "EpochLockWaitNanos") - before;
        assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(400), "waited " + waited + " ns");
    }

    /**
     * Micrometer is optional: a copy of the driver loaded without it (with its own H2, so its own in-memory
     * database) guards, refuses and counts in JMX.
     */
    @Test
    void theDriverWorksWithoutMicrometerOnItsClassPath_C1() throws Exception {
        URL[] path = {location(FencingDriver.class), location(dev.fencing.sql.SqlAnalyzer.class),
            location(net.sf.jsqlparser.parser.CCJSqlParser.class), location(org.h2.Driver.class)};
        String alone = resource + "-alone";
        String url = "jdbc:fencing:h2:mem:" + alone + ";fencing.schema=create;fencing.resource=" + alone;
        try (URLClassLoader loader = new URLClassLoader(path, ClassLoader.getPlatformClassLoader())) {
            assertThrows(ClassNotFoundException.class, () -> loader.loadClass("io.micrometer.core.instrument.Metrics"));
            Class.forName("org.h2.Driver", true, loader);
            Driver driver = (Driver) loader.loadClass(FencingDriver.class.getName()).getDeclaredConstructor()
                    .newInstance();
            Properties owner = new Properties();
            owner.setProperty("fencing.token", "3");
            Properties stale = new Properties();
            stale.setProperty("fencing.token", "2");
            try (Connection c = driver.connect(url, owner); Statement s = c.createStatement();
                 Connection old = driver.connect(url, stale); Statement o = old.createStatement()) {
                s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance INT NOT NULL)");
                assertEquals(1, s.executeUpdate("INSERT INTO account VALUES (1, 30)"));
                SQLException refused = assertThrows(SQLException.class,
                        () -> o.executeUpdate("UPDATE account SET balance = 31 WHERE id = 1"));
                assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState());
                try (ResultSet rs = s.executeQuery("SELECT balance FROM account WHERE id = 1")) {
                    assertTrue(rs.next());
                    assertEquals(30, rs.getInt(1), "the stale write changed nothing");
                }
            }
            assertFalse((Boolean) loader.loadClass("dev.fencing.jdbc.audit.FenceMetrics")
                    .getMethod("micrometerBound").invoke(null));
            ObjectName name = new ObjectName("dev.fencing:type=Fence,resource=" + alone);
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            assertEquals(2L, server.getAttribute(name, "MutationsGuarded"));
            assertEquals(1L, server.getAttribute(name, "Refusals"));
        }
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    private int balance() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM account WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
