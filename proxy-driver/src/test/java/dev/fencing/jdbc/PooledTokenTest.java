package dev.fencing.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC C6 behind HikariCP: a token set on a pooled connection (client info, the typed setter, {@code SET
 * fencing.token}) ends when the borrower hands the connection back, so the next borrower of the same physical
 * connection, which sets none, is refused and changes nothing. Judged by raw reads. Run on each database by a
 * subclass.
 */
abstract class PooledTokenTest {
    /** HikariCP's switch (a system property read when a pool starts) for JDBC 4.3 request boundaries. */
    private static final String BOUNDARIES = "com.zaxxer.hikari.enableRequestBoundaries";

    /** One way a borrower sets its own token on the connection. */
    enum Way {
        CLIENT_INFO, TYPED_SETTER, SQL_SET, TYPED_SETTER_WITH_REQUEST_BOUNDARIES;

        void set(Connection c, long token) throws SQLException {
            switch (this) {
                case CLIENT_INFO -> c.setClientInfo("fencing.token", Long.toString(token));
                case TYPED_SETTER, TYPED_SETTER_WITH_REQUEST_BOUNDARIES ->
                        c.unwrap(FencedConnection.class).setFencingToken(token);
                case SQL_SET -> {
                    try (Statement s = c.createStatement()) {
                        s.execute("SET fencing.token = " + token);
                    }
                }
            }
        }
    }

    private String raw;
    private String table;
    private String resource;

    abstract TestDatabase database();

    @BeforeEach
    void createTable() throws SQLException {
        raw = database().rawUrl();
        table = TestDatabase.unique("pooled");
        resource = TestDatabase.unique("pooled");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 0)");
    }

    @AfterEach
    void dropTable() throws SQLException {
        // The resource's epoch row stays: the database refuses to delete marks, so each run uses a new resource.
        TestDatabase.exec(raw, "DROP TABLE " + table);
    }

    @ParameterizedTest
    @EnumSource(Way.class)
    void theNextBorrowerOfAPooledConnectionDoesNotInheritItsToken_C6(Way way) throws Exception {
        boolean boundaries = way == Way.TYPED_SETTER_WITH_REQUEST_BOUNDARIES;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabase.fenced(raw, "fencing.schema=create", "fencing.issuer.check=off",
                "fencing.resource=" + resource));
        config.setMaximumPoolSize(1);
        if (boundaries) {
            System.setProperty(BOUNDARIES, "true");
        }
        try (HikariDataSource pool = new HikariDataSource(config)) {
            FencedConnection first;
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                first = c.unwrap(FencedConnection.class);
                way.set(c, 4);
                assertEquals(1, s.executeUpdate("UPDATE " + table + " SET v = 1 WHERE id = 1"));
            }
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                assertSame(first, c.unwrap(FencedConnection.class), "the same physical connection");
                assertTrue(c.unwrap(FencedConnection.class).getFencingToken().isEmpty());
                FencingRefusedException e = assertThrows(FencingRefusedException.class,
                        () -> s.executeUpdate("UPDATE " + table + " SET v = 2 WHERE id = 1"));
                assertEquals(FencingSqlState.INVALID_TOKEN, e.getSQLState());
                assertTrue(e.getMessage().contains("handed back"), e.getMessage());
            }
        } finally {
            System.clearProperty(BOUNDARIES);
        }
        assertEquals(1, value(), "the second borrower changed nothing");
    }

    private int value() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT v FROM " + table + " WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
