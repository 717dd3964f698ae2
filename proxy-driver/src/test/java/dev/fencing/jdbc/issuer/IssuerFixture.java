package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.TestDatabase;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * One database for issuer tests: its own epoch table, lease table and data table (unique names, so tests never
 * touch the shared PostgreSQL server's objects), the issuer over them and the fenced URL that guards them.
 */
final class IssuerFixture implements AutoCloseable {
    final String raw;
    final String epoch = TestDatabase.unique("epoch");
    final String lease = TestDatabase.unique("lease");
    final String data = TestDatabase.unique("jobdata");
    private final List<TokenIssuer> issuers = new ArrayList<>();

    IssuerFixture(String raw) throws SQLException {
        this.raw = raw;
        try (TokenIssuer issuer = issuer()) {
            issuer.createTables();
        }
        TestDatabase.exec(raw, "CREATE TABLE " + data + " (token BIGINT NOT NULL, seq INT NOT NULL, writer VARCHAR(60))");
    }

    /** A new issuer over this fixture's tables; closed with the fixture. */
    TokenIssuer issuer() throws SQLException {
        Properties info = new Properties();
        info.setProperty("fencing.table", epoch);
        info.setProperty("fencing.lease.table", lease);
        TokenIssuer issuer = TokenIssuer.forUrl(raw, info);
        issuers.add(issuer);
        return issuer;
    }

    /** The fencing URL over this fixture's tables (the resource and token come from elsewhere unless given). */
    String fenced(String... settings) {
        String[] all = new String[settings.length + 2];
        all[0] = "fencing.table=" + epoch;
        all[1] = "fencing.lease.table=" + lease;
        System.arraycopy(settings, 0, all, 2, settings.length);
        return TestDatabase.fenced(raw, all);
    }

    /** The connection options of the {@code fencing} command for this fixture. */
    List<String> cliDb() {
        return List.of("--url", raw, "--epoch-table", epoch, "--lease-table", lease);
    }

    /**
     * Writes one row through the fencing driver with {@code token}; throws the refusal if refused. A resource without
     * a lease is an external coordinator's: declared first, as its operator would (SPEC C11).
     */
    void write(String resource, long token, String writer) throws SQLException {
        try (TokenIssuer issuer = issuer()) {
            issuer.declare(List.of(resource));
        }
        try (Connection c = DriverManager.getConnection(fenced("fencing.resource=" + resource, "fencing.token=" + token));
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + data + " (token, seq, writer) VALUES (?, 0, ?)")) {
            ps.setLong(1, token);
            ps.setString(2, writer);
            ps.executeUpdate();
        }
    }

    long mark(String resource) throws SQLException {
        return Math.max(0, single("SELECT epoch FROM " + epoch + " WHERE resource = ?", resource));
    }

    long issued(String resource) throws SQLException {
        return single("SELECT issued FROM " + lease + " WHERE resource = ?", resource);
    }

    /** Rows written to the data table with {@code token}. */
    long rows(long token) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw);
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + data + " WHERE token = ?")) {
            ps.setLong(1, token);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private long single(String sql, String resource) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    @Override
    public void close() throws SQLException {
        for (TokenIssuer issuer : issuers) {
            issuer.close();
        }
        TestDatabase.exec(raw, "DROP TABLE IF EXISTS " + data, "DROP TABLE IF EXISTS " + lease,
                "DROP TABLE IF EXISTS " + epoch);
    }
}
