package dev.fencing.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.SplittableRandom;
import javax.sql.DataSource;

/**
 * The harness's workloads, each one operation as an application behind a pool runs it: borrow a connection,
 * prepare, execute, close. The SQL is the same for both drivers; only the pool's URL differs.
 */
enum Workload {
    /** pgbench's simple update: one row, autocommit. */
    UPDATE("update", "autocommit single-row UPDATE") {
        @Override
        void run(DataSource pool, BenchTables t, SplittableRandom random) throws SQLException {
            try (Connection c = pool.getConnection();
                 PreparedStatement update = c.prepareStatement("UPDATE " + t.accounts
                         + " SET abalance = abalance + ? WHERE aid = ?")) {
                update.setInt(1, delta(random));
                update.setInt(2, random.nextInt(t.rows) + 1);
                expectOne(update.executeUpdate(), this);
            }
        }
    },
    /** pgbench's TPC-B-like transaction: three updates, one select, one insert, one commit. */
    TPCB("tpcb", "TPC-B-like transaction (3 UPDATE, 1 SELECT, 1 INSERT)") {
        @Override
        void run(DataSource pool, BenchTables t, SplittableRandom random) throws SQLException {
            int aid = random.nextInt(t.rows) + 1;
            int tid = random.nextInt(t.tellerCount) + 1;
            int bid = random.nextInt(t.branchCount) + 1;
            int delta = delta(random);
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                try {
                    update(c, "UPDATE " + t.accounts + " SET abalance = abalance + ? WHERE aid = ?", delta, aid);
                    try (PreparedStatement s = c.prepareStatement("SELECT abalance FROM " + t.accounts
                            + " WHERE aid = ?")) {
                        s.setInt(1, aid);
                        try (ResultSet rs = s.executeQuery()) {
                            expectOne(rs.next() ? 1 : 0, this);
                        }
                    }
                    update(c, "UPDATE " + t.tellers + " SET tbalance = tbalance + ? WHERE tid = ?", delta, tid);
                    update(c, "UPDATE " + t.branches + " SET bbalance = bbalance + ? WHERE bid = ?", delta, bid);
                    update(c, "INSERT INTO " + t.history + " (tid, bid, aid, delta, mtime)"
                            + " VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)", tid, bid, aid, delta);
                    c.commit();
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
            }
        }
    },
    /** pgbench's select-only: one row by primary key, autocommit. */
    READ("read", "read-only primary-key SELECT") {
        @Override
        void run(DataSource pool, BenchTables t, SplittableRandom random) throws SQLException {
            try (Connection c = pool.getConnection();
                 PreparedStatement select = c.prepareStatement("SELECT abalance FROM " + t.accounts
                         + " WHERE aid = ?")) {
                select.setInt(1, random.nextInt(t.rows) + 1);
                try (ResultSet rs = select.executeQuery()) {
                    expectOne(rs.next() ? 1 : 0, this);
                }
            }
        }
    },
    /** One batch of 100 single-row INSERTs, autocommit. */
    BATCH("batch", "INSERT batch of 100 rows") {
        @Override
        void run(DataSource pool, BenchTables t, SplittableRandom random) throws SQLException {
            Timestamp now = new Timestamp(System.currentTimeMillis());
            try (Connection c = pool.getConnection();
                 PreparedStatement insert = c.prepareStatement("INSERT INTO " + t.history
                         + " (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, ?)")) {
                for (int i = 0; i < BATCH_SIZE; i++) {
                    insert.setInt(1, random.nextInt(t.tellerCount) + 1);
                    insert.setInt(2, random.nextInt(t.branchCount) + 1);
                    insert.setInt(3, random.nextInt(t.rows) + 1);
                    insert.setInt(4, delta(random));
                    insert.setTimestamp(5, now);
                    insert.addBatch();
                }
                int[] counts = insert.executeBatch();
                expectOne(counts.length == BATCH_SIZE ? 1 : 0, this);
            }
        }
    };

    static final int BATCH_SIZE = 100;

    private final String key;
    private final String title;

    Workload(String key, String title) {
        this.key = key;
        this.title = title;
    }

    /** One operation of this workload. */
    abstract void run(DataSource pool, BenchTables tables, SplittableRandom random) throws SQLException;

    String key() {
        return key;
    }

    String title() {
        return title;
    }

    static Workload named(String key) {
        for (Workload workload : values()) {
            if (workload.key.equals(key)) {
                return workload;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + key + "' (update, tpcb, read, batch)");
    }

    /** Runs one statement of a transaction that must change exactly one row. */
    void update(Connection c, String sql, int... values) throws SQLException {
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                statement.setInt(i + 1, values[i]);
            }
            expectOne(statement.executeUpdate(), this);
        }
    }

    private static int delta(SplittableRandom random) {
        return random.nextInt(10_001) - 5_000;
    }

    /** A wrong result means the measurement is of something else: the run stops. */
    private static void expectOne(int count, Workload workload) {
        if (count != 1) {
            throw new IllegalStateException(workload.key + ": expected one row, got " + count);
        }
    }
}
