package dev.fencing.springintegration;

import dev.fencing.jdbc.issuer.TokenIssuer;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;

/** The examples of docs/spring-integration.md, compiled and run by the tests. */
final class SpringIntegrationExample {
    private SpringIntegrationExample() {
    }

    /** The registry, where an application makes its {@code JdbcLockRegistry}; {@code url} is its jdbc:fencing: URL. */
    static FencedLockRegistry registry(String url, Duration ttl) throws SQLException {
        // doc:registry begin
        FencedLockRegistry registry = new FencedLockRegistry(TokenIssuer.forUrl(url, new Properties()), ttl);
        // doc:registry end
        return registry;
    }

    /** One locked write through {@code dataSource}, a jdbc:fencing: data source or pool. */
    static void placeOrder(FencedLockRegistry registry, DataSource dataSource, String item) throws SQLException {
        // doc:write begin
        try (FencedLock.Locked locked = registry.obtain("orders").locked();
             Connection c = dataSource.getConnection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO orders (item) VALUES (?)")) {
            insert.setString(1, item);
            insert.executeUpdate();    // SQLState ZF002 once this holder overran its lock and a later one wrote
        }
        // doc:write end
    }
}
