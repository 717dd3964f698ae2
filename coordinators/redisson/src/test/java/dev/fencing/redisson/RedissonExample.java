package dev.fencing.redisson;

import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.concurrent.TimeUnit;

/**
 * The example of docs/redisson.md, as compiled code: {@link RedissonDocTest} checks that the page prints exactly
 * the text between the {@code doc:} markers, and runs it.
 */
final class RedissonExample {
    private RedissonExample() {
    }

    /** Places an order as the lock's holder; {@code dataSource} is a jdbc:fencing: data source or pool. */
    static void placeOrder(RedissonClient redisson, DataSource dataSource, String lockName) throws Exception {
        // doc:lock begin
        RFencedLock lock = redisson.getFencedLock(lockName);
        try (RedissonLease lease = RedissonFencing.lock(lock, "orders", 30, TimeUnit.SECONDS, dataSource)) {
            try (Connection c = dataSource.getConnection();
                 PreparedStatement insert = c.prepareStatement("INSERT INTO orders (item) VALUES (?)")) {
                insert.setString(1, "book");
                insert.executeUpdate();    // SQLState ZF002 once a newer holder of the lock has written
            }
        } catch (CounterWentBackException lost) {
            // Redis lost the lock's counter: nothing was written. Put it above every token handed out, then retry.
            RedissonFencing.rebase(redisson, lock, lost.highWaterMark() + 1_000_000);
            throw lost;
        }
        // doc:lock end
    }
}
