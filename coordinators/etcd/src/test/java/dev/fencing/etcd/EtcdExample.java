package dev.fencing.etcd;

import dev.fencing.jdbc.Fencing;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lock.LockResponse;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;

import static java.nio.charset.StandardCharsets.UTF_8;

/** The example of docs/etcd.md, compiled here and run by {@link EtcdFencingTest}. */
final class EtcdExample {
    private EtcdExample() {
    }

    /**
     * Locks {@code locks/orders} under {@code leaseId} (the application's etcd lease, kept alive while it works) and
     * writes one row through {@code dataSource}, a jdbc:fencing: data source with {@code fencing.resource=orders}.
     */
    static void placeOrder(Client client, long leaseId, DataSource dataSource, String who) throws Exception {
        // doc:lock begin
        LockResponse locked = client.getLockClient().lock(ByteSequence.from("locks/orders", UTF_8), leaseId).get();
        try (Fencing.Scope fenced = EtcdFencing.scope(client, locked, leaseId, "orders");
             Connection c = dataSource.getConnection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO orders (written_by) VALUES (?)")) {
            insert.setString(1, who);
            insert.executeUpdate();    // SQLState ZF002 once a newer holder of the lock has written
        } finally {
            client.getLockClient().unlock(locked.getKey()).get();
        }
        // doc:lock end
    }
}
