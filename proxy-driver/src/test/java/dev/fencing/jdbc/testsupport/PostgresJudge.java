package dev.fencing.jdbc.testsupport;

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
 * A schema of the test's own on the machine's PostgreSQL ({@code fencing.test.pg.url}), the judge of the coordinator
 * modules' tests, with the fence's tables and an {@code orders} table; dropped by {@link #close()}. Skips the test
 * when PostgreSQL cannot be reached, except under {@code CI=true}, where that fails.
 */
public class PostgresJudge implements AutoCloseable {
    /** The schema, unique to the run. */
    public final String schema;
    /** The underlying driver's URL, ending in {@code ?} or {@code &} so that a parameter can follow. */
    public final String rawUrl;

    protected PostgresJudge(String schemaTag, String rawUrl) {
        this.schema = "fencing_test_" + schemaTag + "_" + Long.toHexString(System.nanoTime());
        this.rawUrl = rawUrl;
    }

    /**
     * Creates {@code judge}'s schema, its {@code orders} table and the fence's tables; {@code suite} names the tests
     * in the notice printed when they are skipped.
     */
    protected static <J extends PostgresJudge> J create(J judge, String pgUrl, String suite) throws SQLException {
        try (Connection c = DriverManager.getConnection(pgUrl); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + judge.schema);
            s.execute("CREATE TABLE " + judge.schema + ".orders (id SERIAL PRIMARY KEY, item TEXT NOT NULL)");
        } catch (SQLException unreachable) {
            if ("true".equals(System.getenv("CI"))) {
                throw unreachable;
            }
            System.err.println("NOTICE: " + suite + " tests skipped: PostgreSQL not reachable at " + pgUrl + " ("
                    + unreachable.getMessage() + "). Set -Dfencing.test.pg.url=... to run them.");
            Assumptions.abort("PostgreSQL not reachable at " + pgUrl + ": " + unreachable.getMessage());
        }
        try (TokenIssuer issuer = TokenIssuer.forUrl(judge.fencingUrl(), new Properties())) {
            issuer.createTables();
        }
        return judge;
    }

    /** The configured PostgreSQL URL. */
    protected static String configuredUrl() {
        return System.getProperty("fencing.test.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    }

    /** {@code url} ready for one more parameter. */
    protected static String openEnded(String url) {
        return url + (url.contains("?") ? "&" : "?");
    }

    /** The underlying driver's URL, in the schema. */
    public String url() {
        return rawUrl + "currentSchema=" + schema;
    }

    /** The application's jdbc:fencing: URL: the fence's tables in the schema, resource {@code orders}. */
    public String fencingUrl() {
        return "jdbc:fencing:" + url().substring("jdbc:".length()) + "&fencing.table=" + schema + ".fencing_epoch"
                + "&fencing.lease.table=" + schema + ".fencing_lease&fencing.resource=orders";
    }

    public List<String> items() throws SQLException {
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
