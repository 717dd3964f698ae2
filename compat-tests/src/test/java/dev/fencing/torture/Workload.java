package dev.fencing.torture;

import dev.fencing.jdbc.audit.Refusals;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencedConnection;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.TestDatabase;
import dev.fencing.jdbc.issuer.AcquireOptions;
import dev.fencing.jdbc.issuer.Lease;
import dev.fencing.jdbc.issuer.LeaseUnavailableException;
import dev.fencing.jdbc.issuer.TokenIssuer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The simulated owners: each repeatedly acquires the resource from the token issuer (short leases, sometimes
 * forced, sometimes with immediate revocation) and runs a few operations with the token from several writer threads,
 * over pooled and fresh connections, pausing at random points, sometimes for longer than the lease.
 *
 * <p>Every random choice of an operation is drawn up front from a generator seeded from the run's seed, the owner,
 * the session and the writer, so a seed replays the same plan; only the interleaving of threads differs.
 *
 * <p>With {@code naive} the writers bypass the fencing driver and do what the fence exists to prevent: read the
 * mark without a lock, then write (the planted bug the checker must catch).
 */
final class Workload {
    /** Statements whose errors mean the autocommit statement was rolled back, so it surely did not commit. */
    private static final Set<String> STATEMENT_ABORTED = Set.of("57014", "55P03", "40P01", "40001", "HYT00");

    private final TortureRun.Config config;
    private final Target target;
    private final Schema schema;
    private final String resource;
    private final History history;
    private final Faults faults;
    private final String fencedUrl;
    private final HikariDataSource pool;
    private final Set<Long> tokens = ConcurrentHashMap.newKeySet();
    final AtomicLong finished = new AtomicLong();
    private volatile long deadline;

    Workload(TortureRun.Config config, Target target, Schema schema, String resource, History history, Faults faults) {
        this.config = config;
        this.target = target;
        this.schema = schema;
        this.resource = resource;
        this.history = history;
        this.faults = faults;
        this.fencedUrl = TestDatabase.fenced(target.clientUrl(), "fencing.table=" + schema.epoch(),
                "fencing.lease.table=" + schema.lease(), "fencing.resource=" + resource,
                "fencing.guard=" + config.guard(), "fencing.schema=create");
        HikariConfig pooling = new HikariConfig();
        pooling.setPoolName("torture-" + resource);
        pooling.setJdbcUrl(config.naive() ? target.clientUrl() : fencedUrl);
        pooling.setMaximumPoolSize(config.poolSize());
        pooling.setMinimumIdle(0);
        pooling.setConnectionTimeout(2_000);
        pooling.setValidationTimeout(1_000);
        pooling.setInitializationFailTimeout(-1);
        this.pool = new HikariDataSource(pooling);
    }

    /** Runs every owner until each has done its share of the operations; false when the deadline cut it short. */
    boolean run(long deadlineNanos) throws Exception {
        deadline = deadlineNanos;
        ExecutorService owners = Executors.newFixedThreadPool(config.owners());
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int owner = 1; owner <= config.owners(); owner++) {
                int index = owner;
                int share = config.ops() / config.owners() + (owner <= config.ops() % config.owners() ? 1 : 0);
                running.add(owners.submit(() -> {
                    owner(index, share);
                    return null;
                }));
            }
            for (Future<?> each : running) {
                each.get();
            }
        } finally {
            owners.shutdownNow();
            pool.close();
        }
        return System.nanoTime() < deadline;
    }

    private boolean late() {
        return System.nanoTime() > deadline;
    }

    private void owner(int owner, int share) throws Exception {
        Random random = new Random(mix(config.seed(), owner));
        Properties tables = new Properties();
        tables.setProperty("fencing.table", schema.epoch());
        tables.setProperty("fencing.lease.table", schema.lease());
        ExecutorService writers = Executors.newFixedThreadPool(config.maxWriters());
        try (TokenIssuer issuer = TokenIssuer.forUrl(target.clientUrl(), tables)) {
            int left = share;
            while (left > 0 && !late()) {
                boolean force = random.nextDouble() < config.pForce();
                boolean revoke = random.nextDouble() < config.pRevoke();
                boolean release = random.nextBoolean();
                int ops = Math.min(left, 1 + random.nextInt(6));
                int writerCount = 1 + random.nextInt(config.maxWriters());
                long sessionSeed = random.nextLong();
                Lease lease = acquire(issuer, owner, force, revoke);
                if (lease == null) {
                    return;
                }
                List<Future<?>> session = new ArrayList<>();
                for (int w = 0; w < writerCount; w++) {
                    int writer = w;
                    session.add(writers.submit(() -> {
                        Random plan = new Random(mix(sessionSeed, writer));
                        for (int i = writer; i < ops; i += writerCount) {
                            runOp(owner, lease.token(), plan);
                            if (finished.incrementAndGet() % 10_000 == 0) {
                                System.out.println("torture: " + finished.get() + " operations done, "
                                        + history.millis() / 1000 + " s");
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> each : session) {
                    each.get();
                }
                left -= ops;
                if (release) {
                    try {
                        issuer.release(lease);
                    } catch (SQLException e) {
                        // lease already lost or the database is away: it expires on its own
                    }
                }
            }
        } finally {
            writers.shutdownNow();
        }
    }

    private Lease acquire(TokenIssuer issuer, int owner, boolean force, boolean revoke) throws InterruptedException {
        AcquireOptions options = AcquireOptions.DEFAULT.waitUpTo(config.ttl().multipliedBy(2)).takeOver(force)
                .revokeImmediately(revoke);
        while (!late()) {
            try {
                Lease lease = issuer.acquire(resource, "owner-" + owner, config.ttl(), options);
                history.acquired(owner, lease.token(), tokens.add(lease.token()), force, revoke);
                return lease;
            } catch (LeaseUnavailableException busy) {
                // someone else holds it: ask again
            } catch (SQLException e) {
                Thread.sleep(20);
            }
        }
        return null;
    }

    /** One operation: plan it from {@code random}, run it, record how it ended. */
    private void runOp(int owner, long token, Random random) {
        int shapeDraw = random.nextInt(100);
        Op.Shape shape = shapeDraw < 30 ? Op.Shape.AUTOCOMMIT_INSERT
                : shapeDraw < 55 ? Op.Shape.AUTOCOMMIT_UPDATE : Op.Shape.TRANSACTION;
        boolean pooled = random.nextInt(4) != 0;
        int delivery = random.nextInt(3);
        boolean tight = random.nextDouble() < config.pTight();
        String[] tightSql = target.tightTimeouts(random);
        long pauseFirst = pause(random);
        long pauseBetween = pause(random);
        long pauseCommit = pause(random);
        int[] ids = new int[shape == Op.Shape.TRANSACTION ? random.nextInt(4) : 0];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = 1 + random.nextInt(Schema.DATA_ROWS);
        }
        Arrays.sort(ids);
        int items = shape == Op.Shape.TRANSACTION ? random.nextInt(4) : 0;
        boolean itemsFirst = random.nextBoolean();
        int betweenAt = random.nextInt(3);
        int slot = shape == Op.Shape.AUTOCOMMIT_UPDATE ? 1 + random.nextInt(Schema.SLOT_ROWS) : -1;

        String how = (config.naive() ? "raw pool, naive check-then-write"
                : (pooled ? "pool" : "new connection") + (delivery == 0 ? " + Fencing.scope"
                : delivery == 1 ? " + setFencingToken" : " + SET fencing.token"))
                + (tight ? " + " + String.join(", ", tightSql) : "");
        Op op = history.newOp(owner, token, shape, ids, items, slot, how);
        Step step = new Step(op, shape != Op.Shape.TRANSACTION && !config.naive());
        Connection c = null;
        try (Fencing.Scope scope = delivery == 0 && !config.naive() ? Fencing.scope(resource, token) : null) {
            c = config.naive() || pooled ? pool.getConnection() : DriverManager.getConnection(fencedUrl);
            op.note("got a " + (config.naive() || pooled ? "pooled" : "new") + " connection");
            if (c.getTransactionIsolation() != config.isolation()) {
                c.setTransactionIsolation(config.isolation());
            }
            if (!config.naive() && delivery == 1) {
                c.unwrap(FencedConnection.class).setFencingToken(token);
            } else if (!config.naive() && delivery == 2) {
                execute(c, "SET fencing.token = " + token);
            }
            if (tight) {
                for (String sql : tightSql) {
                    execute(c, sql);
                }
            }
            pause(op, pauseFirst, "before the first statement");
            if (config.naive()) {
                c.setAutoCommit(false);
                if (!naiveCheck(c, op, pauseBetween)) {
                    return;
                }
            }
            switch (shape) {
                case AUTOCOMMIT_INSERT -> logRow(c, step);
                case AUTOCOMMIT_UPDATE -> slotUpdate(c, step);
                default -> {
                    c.setAutoCommit(false);
                    int statement = 0;
                    if (itemsFirst && items > 0) {
                        itemBatch(c, step);
                        pause(op, statement++ == betweenAt ? pauseBetween : 0, "between statements");
                    }
                    for (int id : ids) {
                        dataUpdate(c, step, id);
                        pause(op, statement++ == betweenAt ? pauseBetween : 0, "between statements");
                    }
                    if (!itemsFirst && items > 0) {
                        itemBatch(c, step);
                    }
                    pause(op, pauseCommit, "before commit");
                    logRow(c, step);
                }
            }
            if (!c.getAutoCommit()) {
                step.commitPhase = true;
                op.note("commit");
                c.commit();
            }
            op.end(Op.Outcome.COMMITTED, null, null);
        } catch (SQLException e) {
            ended(op, step, e);
            rollbackQuietly(c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            op.end(Op.Outcome.UNKNOWN, null, "interrupted");
        } finally {
            if (c != null) {
                if (tight) {
                    resetQuietly(c);
                }
                closeQuietly(c);
            }
        }
    }

    /** What one operation has sent so far: enough to tell whether a failure could have committed. */
    private static final class Step {
        final Op op;
        final boolean autocommit;
        boolean mutationSent;
        boolean commitPhase;

        Step(Op op, boolean autocommit) {
            this.op = op;
            this.autocommit = autocommit;
        }
    }

    private static void ended(Op op, Step step, SQLException e) {
        String state = e.getSQLState();
        if (e instanceof FencingRefusedException refused) {
            op.reportedMark = refused.getHighWaterMark();
            op.end(Op.Outcome.REFUSED, state, e.getMessage());
        } else if (state != null && state.startsWith("ZF")) {
            op.end(Op.Outcome.REFUSED, state, e.getMessage());
        } else if (step.commitPhase
                || step.autocommit && step.mutationSent && !STATEMENT_ABORTED.contains(state)) {
            op.end(Op.Outcome.UNKNOWN, state, oneLine(e));
        } else {
            op.end(Op.Outcome.FAILED, state, oneLine(e));
        }
    }

    private static String oneLine(SQLException e) {
        String message = String.valueOf(e.getMessage());
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    // ---- statements ---------------------------------------------------------------------------------------------

    private void logRow(Connection c, Step step) throws SQLException {
        step.mutationSent = true;
        step.op.note("INSERT log row");
        update(c, "INSERT INTO " + schema.ops() + " (op_id, owner, token) VALUES (?, ?, ?)",
                step.op.id, step.op.owner, step.op.token);
    }

    private void slotUpdate(Connection c, Step step) throws SQLException {
        step.mutationSent = true;
        step.op.note("UPDATE slot " + step.op.slot);
        update(c, "UPDATE " + schema.slots() + " SET v = v + 1, op_id = ?, token = ? WHERE id = ?",
                step.op.id, step.op.token, step.op.slot);
    }

    private void dataUpdate(Connection c, Step step, int id) throws SQLException {
        step.op.note("UPDATE data row " + id);
        update(c, "UPDATE " + schema.data() + " SET v = v + 1, last_op = ?, last_token = ? WHERE id = ?",
                step.op.id, step.op.token, id);
    }

    private void itemBatch(Connection c, Step step) throws SQLException {
        step.op.note("INSERT " + step.op.items + " item rows (batch)");
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + schema.items() + " (op_id, n) VALUES (?, ?)")) {
            for (int n = 1; n <= step.op.items; n++) {
                ps.setLong(1, step.op.id);
                ps.setInt(2, n);
                ps.addBatch();
            }
            faults.enter(c);
            try {
                ps.executeBatch();
            } finally {
                faults.leave();
            }
        }
    }

    private void update(Connection c, String sql, long... parameters) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setLong(i + 1, parameters[i]);
            }
            faults.enter(c);
            try {
                ps.executeUpdate();
            } finally {
                faults.leave();
            }
        }
    }

    private void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /**
     * The planted bug: read the mark without a lock, give up if it is above the token, otherwise pause (the GC
     * pause between check and write) and raise it if lower, then let the caller write. Refusals look like the
     * driver's, so the checker treats both alike.
     */
    private boolean naiveCheck(Connection c, Op op, long pauseAfterCheck) throws SQLException, InterruptedException {
        long mark = 0;
        try (PreparedStatement read = c.prepareStatement("SELECT epoch FROM " + schema.epoch() + " WHERE resource = ?")) {
            read.setString(1, resource);
            try (ResultSet rs = read.executeQuery()) {
                if (rs.next()) {
                    mark = rs.getLong(1);
                }
            }
        }
        op.note("naive check read mark " + mark);
        if (mark > op.token) {
            op.reportedMark = mark;
            op.end(Op.Outcome.REFUSED, "ZF002", "naive check: mark " + mark);
            c.rollback();
            return false;
        }
        pause(op, pauseAfterCheck, "between check and write");
        if (mark < op.token) {
            try (PreparedStatement raise = c.prepareStatement("UPDATE " + schema.epoch() + " SET epoch = ? WHERE resource = ?")) {
                raise.setLong(1, op.token);
                raise.setString(2, resource);
                if (raise.executeUpdate() == 0) {
                    try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + schema.epoch()
                            + " (resource, epoch) VALUES (?, ?)")) {
                        insert.setString(1, resource);
                        insert.setLong(2, op.token);
                        insert.executeUpdate();
                    }
                }
            }
            op.note("naive raise of the mark to " + op.token);
        }
        return true;
    }

    // ---- pauses -------------------------------------------------------------------------------------------------

    /** A pause length: none, short (1-20 ms), or longer than the lease (1.2-2 TTL). Always draws three numbers. */
    private long pause(Random random) {
        boolean pause = random.nextDouble() < config.pPause();
        boolean longPause = random.nextDouble() < config.pLongPause();
        double length = random.nextDouble();
        if (!pause) {
            return 0;
        }
        long ttl = config.ttl().toMillis();
        return longPause ? (long) (ttl * (1.2 + 0.8 * length)) : 1 + (long) (19 * length);
    }

    private static void pause(Op op, long millis, String where) throws InterruptedException {
        if (millis > 0) {
            op.note("pause " + millis + "ms " + where);
            Thread.sleep(millis);
        }
    }

    // ---- cleanup ------------------------------------------------------------------------------------------------

    private static void rollbackQuietly(Connection c) {
        try {
            if (c != null && !c.isClosed() && !c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException ignored) {
            // the connection is gone; the pool drops it
        }
    }

    private void resetQuietly(Connection c) {
        try {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
            for (String sql : target.resetTimeouts()) {
                execute(c, sql);
            }
        } catch (SQLException ignored) {
            // a broken connection: the pool drops it, a fresh one has the defaults
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // already broken
        }
    }

    static long mix(long seed, long salt) {
        long z = seed + salt * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
