package dev.fencing.curator;

import dev.fencing.jdbc.Fencing;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;

/**
 * The examples of docs/curator.md, as compiled code: {@link CuratorDocTest} checks that the page prints exactly
 * the text between the {@code doc:} markers, and runs them.
 */
final class CuratorExample {
    private CuratorExample() {
    }

    /** The lock holder's writes on this thread carry its token. */
    static void placeOrder(CuratorFramework client, String url) throws Exception {
        // doc:mutex begin
        InterProcessMutex lock = new InterProcessMutex(client, "/locks/orders");
        lock.acquire();
        try (Fencing.Scope fenced = CuratorFencing.scope(client, lock, "orders")) {
            try (Connection c = DriverManager.getConnection(url);
                 PreparedStatement insert = c.prepareStatement("INSERT INTO orders (item) VALUES (?)")) {
                insert.setString(1, "book");
                insert.executeUpdate();    // SQLState ZF002 once a newer holder of the lock has written
            }
        } finally {
            lock.release();
        }
        // doc:mutex end
    }

    /** The leader's writes on every thread carry its token, while it leads. */
    static void lead(CuratorFramework client, Runnable work) throws Exception {
        // doc:latch begin
        LeaderLatch latch = new LeaderLatch(client, "/leaders/orders");
        LeadershipHold fenced = CuratorFencing.holdWhileLeader(client, latch, "orders");   // the one line
        latch.start();
        try {
            latch.await();
            work.run();    // any thread: connections with fencing.token.source=dev.fencing.jdbc.HeldTokens
        } finally {
            fenced.close();    // before latch.close(): a latch closed in its default mode tells no listener
            latch.close();
        }
        // doc:latch end
    }
}
