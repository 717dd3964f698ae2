package dev.fencing.compat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.TestDatabase;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * One fresh, empty database for a client test: an H2 in-memory database, or on the shared PostgreSQL server a
 * schema of its own (the connection's {@code currentSchema}), so fixed table names of ORMs and migrations, and the
 * epoch table, never meet another test's. Closing drops the schema.
 */
final class CompatDb implements AutoCloseable {
    final TestDatabase database;
    private final String raw;
    private final String schema;
    private String epochSchema;

    private CompatDb(TestDatabase database, String raw, String schema) {
        this.database = database;
        this.raw = raw;
        this.schema = schema;
    }

    static CompatDb open(TestDatabase database) throws SQLException {
        String raw = database.rawUrl();
        if (database == TestDatabase.H2) {
            return new CompatDb(database, raw, null);
        }
        String schema = TestDatabase.unique("compat");
        TestDatabase.exec(raw, "CREATE SCHEMA " + schema);
        return new CompatDb(database, raw + (raw.contains("?") ? "&" : "?") + "currentSchema=" + schema, schema);
    }

    /** The underlying driver's URL. */
    String raw() {
        return raw;
    }

    /** The same database through the fencing driver (epoch table created on first connect), with more settings. */
    String fenced(String... settings) {
        String[] all = new String[settings.length + 1];
        all[0] = "fencing.schema=create";
        System.arraycopy(settings, 0, all, 1, settings.length);
        return TestDatabase.fenced(raw, all);
    }

    /**
     * Puts the epoch table in a schema of its own, outside the schema the application (or its migration tool)
     * manages, and returns the {@code fencing.table} setting that names it.
     */
    String separateEpochTable() throws SQLException {
        if (epochSchema == null) {
            epochSchema = database == TestDatabase.H2 ? "FENCING" : TestDatabase.unique("fencing");
            exec("CREATE SCHEMA " + epochSchema);
        }
        return "fencing.table=" + epochSchema + ".fencing_epoch";
    }

    void exec(String... sql) throws SQLException {
        TestDatabase.exec(raw, sql);
    }

    /** Every row of {@code table} (ordered by its first column) as text, read through the raw driver. */
    List<String> dump(String table) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY 1")) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.append(i == 1 ? "" : "|").append(rs.getString(i));
                }
                rows.add(row.toString());
            }
        }
        return rows;
    }

    /** The resource's high-water mark (0 when it has none). */
    long mark(String resource) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw);
             PreparedStatement ps = c.prepareStatement("SELECT epoch FROM "
                     + (epochSchema == null ? "" : epochSchema + ".") + "fencing_epoch WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /** A client's workload: what the application does through {@code dataSource}, and everything it saw. */
    interface Workload {
        List<Object> run(DataSource dataSource) throws Exception;
    }

    /**
     * Runs {@code workload} twice on fresh databases holding {@code schema}, through pools of the raw driver and of
     * the fencing driver (inside a scope of {@code resource} at {@code token}), and asserts the application saw the
     * same results and {@code tables} hold the same rows (SPEC C8), and the resource's mark is the token.
     */
    static void assertSameAsRawDriver(TestDatabase database, String resource, long token, String[] schema,
                                      Workload workload, String... tables) throws Exception {
        try (CompatDb rawDb = open(database); CompatDb fencedDb = open(database);
             HikariDataSource raw = pool(rawDb.raw(), 2);
             HikariDataSource fenced = pool(fencedDb.fenced("fencing.resource=" + resource), 2)) {
            rawDb.exec(schema);
            fencedDb.exec(schema);
            List<Object> expected = workload.run(raw);
            try (Fencing.Scope scope = Fencing.scope(resource, token)) {
                assertEquals(expected, workload.run(fenced));
            }
            for (String table : tables) {
                assertEquals(rawDb.dump(table), fencedDb.dump(table), table);
            }
            assertEquals(token, fencedDb.mark(resource));
        }
    }

    /** A HikariCP pool over {@code url}. */
    static HikariDataSource pool(String url, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        return new HikariDataSource(config);
    }

    /** The fencing refusal in {@code failure}'s cause chain (frameworks wrap it); fails when there is none. */
    static FencingRefusedException refusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof FencingRefusedException) {
                return (FencingRefusedException) t;
            }
        }
        return fail("no fencing refusal in " + failure, failure);
    }

    /** Asserts {@code failure} is, or wraps, a refusal with {@code sqlState}. */
    static void assertRefused(String sqlState, Throwable failure) {
        assertEquals(sqlState, refusal(failure).getSQLState(), failure::toString);
    }

    @Override
    public void close() throws SQLException {
        if (schema != null) {
            TestDatabase.exec(TestDatabase.pgUrl(), "DROP SCHEMA " + schema + " CASCADE");
        }
        if (schema != null && epochSchema != null) {
            TestDatabase.exec(TestDatabase.pgUrl(), "DROP SCHEMA " + epochSchema + " CASCADE");
        }
    }
}
