package dev.fencing.redisson;

import dev.fencing.jdbc.FencingDataSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The machine's Redis (127.0.0.1:6379, or {@code $FENCING_TEST_REDIS}) and an H2 judge per test. Every lock a test
 * makes is named {@code fencing-test-{uuid}}, its counter key {@code redisson_lock_token:fencing-test-{uuid}}
 * (Redisson's naming); {@link #deleteKeys} removes both.
 */
final class RedisFixture {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private RedisFixture() {
    }

    static String address() {
        String env = System.getenv("FENCING_TEST_REDIS");
        return env == null || env.isBlank() ? "redis://127.0.0.1:6379" : env;
    }

    /** A client of its own, as another process would have. */
    static RedissonClient client() {
        Config config = new Config();
        config.useSingleServer().setAddress(address()).setConnectionMinimumIdleSize(1).setConnectionPoolSize(4)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(4);
        config.setThreads(2).setNettyThreads(4);
        return Redisson.create(config);
    }

    /** A lock name nobody else uses, starting with {@code fencing-test-}. */
    static String lockName() {
        return "fencing-test-{" + UUID.randomUUID() + "}";
    }

    static void deleteKeys(RedissonClient redisson, String lockName) {
        redisson.getKeys().delete(lockName, RedissonFencing.COUNTER_PREFIX + ":" + lockName);
    }

    /** An H2 in-memory database with an {@code orders} table; writers go through {@link #fenced()}. */
    static final class Judge implements AutoCloseable {
        final String name = "redisson" + NAMES.incrementAndGet();
        private final Connection keep;

        Judge() throws SQLException {
            keep = DriverManager.getConnection("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
            try (Statement s = keep.createStatement()) {
                s.execute("CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, written_by VARCHAR(60))");
            }
            // the operator's one-time step: the fence's tables, and the lock's resource declared (docs/redisson.md)
            DriverManager.getConnection(url() + ";fencing.resource=orders").close();
        }

        String url() {
            return "jdbc:fencing:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000;fencing.schema=create";
        }

        FencingDataSource fenced() {
            FencingDataSource ds = new FencingDataSource();
            ds.setUrl(url());
            return ds;
        }

        /** Inserts a row through the fence with the token in force on this thread. */
        void write(String writtenBy) throws SQLException {
            try (Connection c = DriverManager.getConnection(url());
                 var insert = c.prepareStatement("INSERT INTO orders (written_by) VALUES (?)")) {
                insert.setString(1, writtenBy);
                insert.executeUpdate();
            }
        }

        /** Runs set-up SQL through H2 itself. */
        void execute(String sql) throws SQLException {
            try (Statement s = keep.createStatement()) {
                s.execute(sql);
            }
        }

        List<String> rows() throws SQLException {
            List<String> rows = new ArrayList<>();
            try (Statement s = keep.createStatement();
                 ResultSet rs = s.executeQuery("SELECT written_by FROM orders ORDER BY id")) {
                while (rs.next()) {
                    rows.add(rs.getString(1));
                }
            }
            return rows;
        }

        long mark(String resource) throws SQLException {
            try (var p = keep.prepareStatement("SELECT epoch FROM fencing_epoch WHERE resource = ?")) {
                p.setString(1, resource);
                try (ResultSet rs = p.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : 0;
                }
            }
        }

        @Override
        public void close() throws SQLException {
            try (Statement s = keep.createStatement()) {
                s.execute("SHUTDOWN");
            }
        }
    }
}
