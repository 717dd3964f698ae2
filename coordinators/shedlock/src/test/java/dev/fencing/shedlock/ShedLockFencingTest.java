package dev.fencing.shedlock;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.issuer.TokenIssuer;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real scheduled Spring job (@Scheduled + @SchedulerLock) on two nodes, PostgreSQL as judge: node A's run pauses
 * past its lock (lockAtMostFor), node B's run takes the lock and writes, A's late write is refused (SPEC C2, C4).
 * Everything the test creates lives in a schema of its own, dropped at the end.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShedLockFencingTest {
    private static final String SCHEMA = "fencing_test_shedlock_" + Long.toHexString(System.nanoTime());
    private static String rawUrl;

    @BeforeAll
    static void schema() throws SQLException {
        String pg = System.getProperty("fencing.test.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + SCHEMA);
            s.execute("CREATE TABLE " + SCHEMA + ".report (id SERIAL PRIMARY KEY, node TEXT NOT NULL)");
        } catch (SQLException unreachable) {
            if ("true".equals(System.getenv("CI"))) {
                throw unreachable;
            }
            Assumptions.abort("PostgreSQL not reachable at " + pg + ": " + unreachable.getMessage());
        }
        rawUrl = pg + (pg.contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA;
        try (TokenIssuer issuer = TokenIssuer.forUrl(fencingUrl(), new Properties())) {
            issuer.createTables();
        }
    }

    @AfterAll
    static void dropSchema() throws SQLException {
        if (rawUrl != null) {
            try (Connection c = DriverManager.getConnection(rawUrl); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + SCHEMA + " CASCADE");
            }
        }
    }

    /** The application's jdbc:fencing: URL: the fence's tables in the test's own schema. */
    static String fencingUrl() {
        return "jdbc:fencing:" + rawUrl.substring("jdbc:".length()) + "&fencing.table=" + SCHEMA + ".fencing_epoch"
                + "&fencing.lease.table=" + SCHEMA + ".fencing_lease&fencing.resource=nightly-report";
    }

    @Test
    void aRunPausedPastItsLockIsRefusedAfterALaterRunWrote() throws Exception {
        CountDownLatch aRunning = new CountDownLatch(1);
        CountDownLatch aWakes = new CountDownLatch(1);
        CountDownLatch bWrote = new CountDownLatch(1);
        CompletableFuture<Long> aToken = new CompletableFuture<>();
        CompletableFuture<SQLException> aRefused = new CompletableFuture<>();
        CompletableFuture<Long> bToken = new CompletableFuture<>();

        Node nodeA = new Node("A", fencingUrl(), () -> {
            if (aToken.complete(Fencing.current().token())) {   // A's first run: the pause
                aRunning.countDown();
                await(aWakes);
                return true;
            }
            return false;                                       // A's later runs write nothing
        }, aRefused);
        Node nodeB = new Node("B", fencingUrl(), () -> {
            bToken.complete(Fencing.current().token());
            return true;
        }, new CompletableFuture<>());
        nodeB.wrote = bWrote;

        try (AnnotationConfigApplicationContext a = Node.start(nodeA)) {
            assertTrue(aRunning.await(20, TimeUnit.SECONDS), "A's job ran");
            try (AnnotationConfigApplicationContext b = Node.start(nodeB)) {
                assertTrue(bWrote.await(20, TimeUnit.SECONDS), "B's job wrote once A's lock had passed");
                aWakes.countDown();
                SQLException refused = aRefused.get(20, TimeUnit.SECONDS);
                assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState(), refused.getMessage());
            }
        }
        assertTrue(bToken.get() > aToken.get(), "B's token " + bToken.get() + " > A's " + aToken.get());
        List<String> nodes = rows();
        assertFalse(nodes.isEmpty());
        assertTrue(nodes.stream().allMatch("B"::equals), "only B's runs wrote: " + nodes);
    }

    private static List<String> rows() throws SQLException {
        List<String> nodes = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(rawUrl); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT node FROM report ORDER BY id")) {
            while (rs.next()) {
                nodes.add(rs.getString(1));
            }
        }
        return nodes;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One node of the application: its name, its URL, and the test's hooks around its job. */
    static final class Node {
        final String name;
        final String url;
        /** Runs before the job writes; false: this run writes nothing. */
        final java.util.function.BooleanSupplier beforeWrite;
        final CompletableFuture<SQLException> refused;
        volatile CountDownLatch wrote = new CountDownLatch(1);

        Node(String name, String url, java.util.function.BooleanSupplier beforeWrite,
             CompletableFuture<SQLException> refused) {
            this.name = name;
            this.url = url;
            this.beforeWrite = beforeWrite;
            this.refused = refused;
        }

        static AnnotationConfigApplicationContext start(Node node) {
            AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
            context.getBeanFactory().registerSingleton("node", node);
            context.getEnvironment().getPropertySources().addFirst(
                    new MapPropertySource("node", Map.of("app.datasource.url", node.url)));
            context.register(NodeConfig.class);
            context.refresh();
            return context;
        }
    }

    /** The application's configuration, as on every node. */
    @Configuration
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "PT2S")
    static class NodeConfig {
        @Bean
        DataSource dataSource(Node node) {
            FencingDataSource dataSource = new FencingDataSource();
            dataSource.setUrl(node.url);
            return dataSource;
        }

        // doc:provider begin
        @Bean
        LockProvider lockProvider(@Value("${app.datasource.url}") String url) throws SQLException {
            return new FencedLockProvider(TokenIssuer.forUrl(url, new Properties()));
        }
        // doc:provider end

        @Bean
        ReportJob reportJob(Node node, DataSource dataSource) {
            return new ReportJob(node, dataSource);
        }
    }

    /** The scheduled job: plain JDBC, no token in its code. */
    static class ReportJob {
        private final Node node;
        private final DataSource dataSource;

        ReportJob(Node node, DataSource dataSource) {
            this.node = node;
            this.dataSource = dataSource;
        }

        @Scheduled(fixedDelay = 200)
        @SchedulerLock(name = "nightly-report", lockAtMostFor = "PT2S")
        public void nightlyReport() {
            if (!node.beforeWrite.getAsBoolean()) {       // the test's hook: A's pause
                return;
            }
            try {
                report(dataSource, node.name);
                node.wrote.countDown();
            } catch (SQLException e) {
                node.refused.complete(e);
            }
        }

        static void report(DataSource dataSource, String nodeName) throws SQLException {
            // doc:job begin
            try (Connection c = dataSource.getConnection();
                 PreparedStatement insert = c.prepareStatement("INSERT INTO report (node) VALUES (?)")) {
                insert.setString(1, nodeName);
                insert.executeUpdate();    // SQLState ZF002 once this run overran its lock and a later run wrote
            }
            // doc:job end
        }
    }
}
