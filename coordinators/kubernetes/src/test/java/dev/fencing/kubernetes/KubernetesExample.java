package dev.fencing.kubernetes;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.issuer.TokenIssuer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/** The examples of docs/kubernetes.md, compiled here and run by {@link KubernetesLeaseTest}. */
final class KubernetesExample {
    private KubernetesExample() {
    }

    /** A candidate: its lock and its elector (not started). */
    record Candidate(FencedLeaseLock lock, LeaderElector elector) {
    }

    /** A candidate's elector on the Lease {@code default/orders-leader}, as {@code identity} (the pod's name). */
    static Candidate candidate(KubernetesClient client, TokenIssuer issuer, String identity, Duration leaseDuration,
                                 Runnable onStartLeading, Runnable onStopLeading) {
        // doc:elector begin
        FencedLeaseLock lock = new FencedLeaseLock("default", "orders-leader", identity, "orders", issuer);
        LeaderElector elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName("orders").withLock(lock).withReleaseOnCancel(false)
                .withLeaseDuration(leaseDuration).withRenewDeadline(leaseDuration.dividedBy(2))
                .withRetryPeriod(leaseDuration.dividedBy(10))
                .withLeaderCallbacks(lock.callbacks(new LeaderCallbacks(onStartLeading, onStopLeading, who -> { })))
                .build()).build();
        // doc:elector end
        return new Candidate(lock, elector);
    }

    /** The leader's write, through {@code dataSource} (a jdbc:fencing: data source with fencing.resource=orders). */
    static void placeOrder(FencedLeaseLock lock, DataSource dataSource, String item) throws SQLException {
        // doc:write begin
        try (Fencing.Scope fenced = lock.lease().scope();
             Connection c = dataSource.getConnection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO orders (item) VALUES (?)")) {
            insert.setString(1, item);
            insert.executeUpdate();    // SQLState ZF002 once a newer leader has written
        }
        // doc:write end
    }
}
