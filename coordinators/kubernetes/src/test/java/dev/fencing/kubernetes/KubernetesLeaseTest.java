package dev.fencing.kubernetes;

import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.HeldTokens;
import dev.fencing.jdbc.issuer.TokenIssuer;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Candidates of one Kubernetes Lease through fabric8's LeaderElector against fabric8's mock API server in CRUD mode,
 * PostgreSQL as judge (and as the tokens' keeper): a leader frozen past its lease is refused once the next leader
 * wrote; the Lease deleted and recreated between leaders (leaseTransitions back to 0, the token still rising).
 */
@EnableKubernetesMockClient(crud = true)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class KubernetesLeaseTest {
    private static final Duration LEASE = Duration.ofSeconds(2);
    static KubernetesMockServer server;
    static KubernetesClient client;
    private static Pg db;
    private static FencingDataSource dataSource;
    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @BeforeAll
    static void database() throws SQLException {
        db = Pg.create();
        dataSource = new FencingDataSource();
        dataSource.setUrl(db.fencingUrl());
    }

    @AfterAll
    static void drop() throws SQLException {
        if (db != null) {
            db.close();
        }
    }

    @AfterEach
    void stopCandidates() throws Exception {
        for (AutoCloseable c : cleanup) {
            c.close();
        }
        client.leases().inNamespace("default").withName("orders-leader").delete();
        try (Connection c = java.sql.DriverManager.getConnection(db.url()); Statement s = c.createStatement()) {
            s.execute("DELETE FROM orders");
        }
    }

    /** A candidate, as one pod: an issuer of its own, its elector started; {@link Running#freeze()} stops it cold. */
    private Running start(String identity) throws SQLException {
        TokenIssuer issuer = TokenIssuer.forUrl(db.fencingUrl(), new Properties());
        CountDownLatch leading = new CountDownLatch(1);
        KubernetesExample.Candidate candidate = KubernetesExample.candidate(client, issuer, identity, LEASE,
                leading::countDown, () -> { });
        Running running = new Running(candidate.lock(), candidate.elector().start(), leading, issuer);
        cleanup.add(running);
        return running;
    }

    private record Running(FencedLeaseLock lock, CompletableFuture<?> elector, CountDownLatch leading,
                           TokenIssuer issuer) implements AutoCloseable {
        void awaitLeading() throws InterruptedException {
            assertTrue(leading.await(30, TimeUnit.SECONDS), lock.identity() + " leads");
        }

        /** As a frozen process: no more renewals, no release, nothing told; its memory still says it leads. */
        void freeze() {
            elector.cancel(true);
        }

        @Override
        public void close() throws SQLException {
            elector.cancel(true);
            issuer.close();
        }
    }

    private Lease lease() {
        return client.leases().inNamespace("default").withName("orders-leader").get();
    }

    @Test
    void aLeaderFrozenPastItsLeaseIsRefusedOnceTheNextLeaderWrote() throws Exception {
        Running a = start("pod-a");
        a.awaitLeading();
        long aToken = a.lock().lease().token();
        assertEquals(Long.toString(aToken), lease().getMetadata().getAnnotations().get(FencedLeaseLock.TOKEN_ANNOTATION));
        KubernetesExample.placeOrder(a.lock(), dataSource, "A");
        a.freeze();

        Running b = start("pod-b");
        b.awaitLeading();                                  // once A's Lease ran out (2 s)
        long bToken = b.lock().lease().token();
        assertTrue(bToken > aToken, "B's token " + bToken + " > A's " + aToken);
        assertEquals("pod-b", lease().getSpec().getHolderIdentity());
        KubernetesExample.placeOrder(b.lock(), dataSource, "B");

        SQLException refused = assertThrows(SQLException.class,        // A wakes, still believing it leads
                () -> KubernetesExample.placeOrder(a.lock(), dataSource, "A late"));
        assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState(), refused.getMessage());
        assertEquals(List.of("A", "B"), db.items());
    }

    @Test
    void theTokenKeepsRisingWhenTheLeaseIsDeletedAndRecreated() throws Exception {
        Running a = start("pod-a");
        a.awaitLeading();
        long aToken = a.lock().lease().token();
        KubernetesExample.placeOrder(a.lock(), dataSource, "A");
        a.freeze();
        Running b = start("pod-b");
        b.awaitLeading();
        long bToken = b.lock().lease().token();
        KubernetesExample.placeOrder(b.lock(), dataSource, "B");
        assertEquals(1, lease().getSpec().getLeaseTransitions(), "A, then B");
        b.freeze();

        client.leases().inNamespace("default").withName("orders-leader").delete();      // deleted ...
        Running c = start("pod-c");
        c.awaitLeading();                                                             // ... and recreated by C
        long cToken = c.lock().lease().token();
        assertEquals(0, lease().getSpec().getLeaseTransitions(), "the recreated Lease counts from 0 again");
        assertTrue(cToken > bToken && bToken > aToken, "tokens " + aToken + " < " + bToken + " < " + cToken);
        KubernetesExample.placeOrder(c.lock(), dataSource, "C");

        for (Running late : List.of(a, b)) {
            SQLException refused = assertThrows(SQLException.class,
                    () -> KubernetesExample.placeOrder(late.lock(), dataSource, "late"));
            assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState(), refused.getMessage());
        }
        assertEquals(List.of("A", "B", "C"), db.items());
    }

    @Test
    void theLeadersTokenIsHeldForTheProcessWhileItLeads() throws Exception {
        Running a = start("pod-a");
        a.awaitLeading();
        assertEquals(a.lock().lease().token(), HeldTokens.held("orders").orElseThrow());
        FencingDataSource anyThread = new FencingDataSource();
        anyThread.setUrl(db.fencingUrl() + "&fencing.token.source=dev.fencing.jdbc.HeldTokens");
        CompletableFuture.runAsync(() -> {
            try (Connection c = anyThread.getConnection(); Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO orders (item) VALUES ('pool thread')");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }).get(10, TimeUnit.SECONDS);
        assertEquals(List.of("pool thread"), db.items());
        long token = a.lock().lease().token();
        String renewedAt = lease().getSpec().getRenewTime().toString();
        Thread.sleep(LEASE.toMillis());                    // about ten renewals (retry period 200 ms)
        assertTrue(!renewedAt.equals(lease().getSpec().getRenewTime().toString()), "renewed");
        assertEquals(token, a.lock().lease().token(), "renewals keep the token");
        assertEquals(Long.toString(token), lease().getMetadata().getAnnotations().get(FencedLeaseLock.TOKEN_ANNOTATION));
        assertEquals(token, HeldTokens.held("orders").orElseThrow());
    }

    /**
     * The order of the tokens rests on the API server refusing a write of the Lease made from a stale read: fabric8's
     * ResourceLock writes with a JSON merge patch carrying the resourceVersion it read, as this test does.
     */
    @Test
    void theApiServerRefusesAStaleResourceVersionTheOrderRestsOn() {
        client.leases().inNamespace("default").resource(new LeaseBuilder().withNewMetadata()
                .withName("orders-leader").endMetadata().withNewSpec().withHolderIdentity("x").endSpec().build())
                .create();
        Lease read = lease();
        client.resource(new LeaseBuilder(read).editSpec().withHolderIdentity("y").endSpec().build())
                .patch(PatchContext.of(PatchType.JSON_MERGE));
        Lease stale = new LeaseBuilder(read).editSpec().withHolderIdentity("z").endSpec().build();
        KubernetesClientException conflict = assertThrows(KubernetesClientException.class,
                () -> client.resource(stale).patch(PatchContext.of(PatchType.JSON_MERGE)));
        assertEquals(409, conflict.getCode(), conflict.getMessage());
        assertEquals("y", lease().getSpec().getHolderIdentity());
    }
}
