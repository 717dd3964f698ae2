package dev.fencing.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The pgbench-style tables one harness run works on (accounts, tellers, branches, history), under names unique to
 * the run so that runs and other users of a shared server never collide; created and filled over the raw driver,
 * dropped at the end.
 */
final class BenchTables implements AutoCloseable {
    /** pgbench's scale: one branch and ten tellers per 100,000 accounts. */
    private static final int ACCOUNTS_PER_BRANCH = 100_000;

    final String accounts;
    final String tellers;
    final String branches;
    final String history;
    final int rows;
    final int branchCount;
    final int tellerCount;
    private final String rawUrl;

    private BenchTables(String rawUrl, String suffix, int rows) {
        this.rawUrl = rawUrl;
        this.accounts = "bench_accounts_" + suffix;
        this.tellers = "bench_tellers_" + suffix;
        this.branches = "bench_branches_" + suffix;
        this.history = "bench_history_" + suffix;
        this.rows = rows;
        this.branchCount = Math.max(1, rows / ACCOUNTS_PER_BRANCH);
        this.tellerCount = 10 * branchCount;
    }

    /** Creates and fills the tables; {@code suffix} makes the names unique. */
    static BenchTables create(String rawUrl, String suffix, int rows) throws SQLException {
        BenchTables tables = new BenchTables(rawUrl, suffix, rows);
        try (Connection c = DriverManager.getConnection(rawUrl); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + tables.branches + " (bid INT NOT NULL PRIMARY KEY, bbalance INT NOT NULL,"
                    + " filler CHAR(88))");
            s.execute("CREATE TABLE " + tables.tellers + " (tid INT NOT NULL PRIMARY KEY, bid INT NOT NULL,"
                    + " tbalance INT NOT NULL, filler CHAR(84))");
            s.execute("CREATE TABLE " + tables.accounts + " (aid INT NOT NULL PRIMARY KEY, bid INT NOT NULL,"
                    + " abalance INT NOT NULL, filler CHAR(84))");
            s.execute("CREATE TABLE " + tables.history + " (tid INT NOT NULL, bid INT NOT NULL, aid INT NOT NULL,"
                    + " delta INT NOT NULL, mtime TIMESTAMP NOT NULL, filler CHAR(22))");
            tables.fill(c, s);
        } catch (SQLException | RuntimeException e) {
            try {
                tables.close();
            } catch (SQLException dropFailure) {
                e.addSuppressed(dropFailure);
            }
            throw e;
        }
        return tables;
    }

    private void fill(Connection c, Statement s) throws SQLException {
        fillRange(c, s, branches + " (bid, bbalance, filler)", "g, 0, ''", branchCount);
        fillRange(c, s, tellers + " (tid, bid, tbalance, filler)", "g, (g - 1) / 10 + 1, 0, ''", tellerCount);
        fillRange(c, s, accounts + " (aid, bid, abalance, filler)",
                "g, (g - 1) / " + ACCOUNTS_PER_BRANCH + " + 1, 0, ''", rows);
        if (rawUrl.startsWith("jdbc:postgresql:")) {
            for (String table : new String[] {branches, tellers, accounts, history}) {
                s.execute("VACUUM ANALYZE " + table);
            }
        }
    }

    /** Inserts rows 1..n, {@code values} written in terms of the row number {@code g}. */
    private void fillRange(Connection c, Statement s, String target, String values, int n) throws SQLException {
        if (rawUrl.startsWith("jdbc:postgresql:")) {
            s.execute("INSERT INTO " + target + " SELECT " + values + " FROM generate_series(1, " + n + ") g");
        } else if (rawUrl.startsWith("jdbc:h2:")) {
            s.execute("INSERT INTO " + target + " SELECT " + values + " FROM (SELECT CAST(X AS INT) g"
                    + " FROM SYSTEM_RANGE(1, " + n + ")) r");
        } else {
            fillWithBatches(c, target, values, n);
        }
    }

    /** Any other database: the rows computed here and sent in batches. */
    private static void fillWithBatches(Connection c, String target, String values, int n) throws SQLException {
        int columns = values.split(",").length;
        String markers = "?" + ", ?".repeat(columns - 1);
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + target + " VALUES (" + markers + ")")) {
            for (int g = 1; g <= n; g++) {
                insert.setInt(1, g);
                if (columns == 4) {
                    insert.setInt(2, target.contains("tellers") ? (g - 1) / 10 + 1 : (g - 1) / ACCOUNTS_PER_BRANCH + 1);
                    insert.setInt(3, 0);
                    insert.setString(4, "");
                } else {
                    insert.setInt(2, 0);
                    insert.setString(3, "");
                }
                insert.addBatch();
                if (g % 1000 == 0 || g == n) {
                    insert.executeBatch();
                }
            }
        }
    }

    /** Drops the tables this run created. */
    @Override
    public void close() throws SQLException {
        try (Connection c = DriverManager.getConnection(rawUrl); Statement s = c.createStatement()) {
            for (String table : new String[] {history, accounts, tellers, branches}) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }
}
