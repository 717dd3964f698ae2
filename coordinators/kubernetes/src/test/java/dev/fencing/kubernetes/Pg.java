package dev.fencing.kubernetes;

import dev.fencing.jdbc.issuer.TokenIssuer;
import org.junit.jupiter.api.Assumptions;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * A schema of the test's own on the machine's PostgreSQL (fencing.test.pg.url), with the fence's tables and an
 * {@code orders} table; dropped by {@link #close()}. Skips the test when PostgreSQL cannot be reached, except under
 * CI=true, where that fails.
 */
final class Pg implements AutoCloseable {
    final String schema = "fencing_test_k8s_" + Long.toHexString(System.nanoTime());
    final String rawUrl;

    private Pg(String rawUrl) {
        this.rawUrl = rawUrl;
    }

    static Pg create() throws SQLException {
        String pg = System.getProperty("fencing.test.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        Pg db = new Pg(pg + (pg.contains("?") ? "&" : "?"));
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + db.schema);
            s.execute("CREATE TABLE " + db.schema + ".orders (id SERIAL PRIMARY KEY, item TEXT NOT NULL)");
        } catch (SQLException unreachable) {
            if ("true".equals(System.getenv("CI"))) {
                throw unreachable;
            }
            System.err.println("NOTICE: Kubernetes Lease tests skipped: PostgreSQL not reachable at " + pg + " ("
                    + unreachable.getMessage() + "). Set -Dfencing.test.pg.url=... to run them.");
            Assumptions.abort("PostgreSQL not reachable at " + pg + ": " + unreachable.getMessage());
        }
        try (TokenIssuer issuer = TokenIssuer.forUrl(db.fencingUrl(), new Properties())) {
            issuer.createTables();
        }
        return db;
    }

    /** The underlying driver's URL, in the schema. */
    String url() {
        return rawUrl + "currentSchema=" + schema;
    }

    /** The application's jdbc:fencing: URL: the fence's tables in the schema, resource {@code orders}. */
    String fencingUrl() {
        return "jdbc:fencing:" + url().substring("jdbc:".length()) + "&fencing.table=" + schema + ".fencing_epoch"
                + "&fencing.lease.table=" + schema + ".fencing_lease&fencing.resource=orders";
    }

    List<String> items() throws SQLException {
        List<String> items = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT item FROM orders ORDER BY id")) {
            while (rs.next()) {
                items.add(rs.getString(1));
            }
        }
        return items;
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA " + schema + " CASCADE");
        }
    }
}
