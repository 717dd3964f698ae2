package dev.fencing.torture;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Injects faults while a torture run writes, and watches the high-water mark. On PostgreSQL it only ever touches the
 * run's own sessions (found by their application name, never anybody else's on a shared server): it terminates
 * backends in the middle of transactions and cancels running statements. It closes connections under running
 * statements from the client side, and, where the target allows, restarts the database process mid-run.
 */
final class Faults {
    /** The kinds of fault a run may inject. */
    enum Kind {
        /**
         * {@code pg_terminate_backend} of one of the run's sessions that is in a transaction or running a statement;
         * on MariaDB {@code KILL CONNECTION} of one of the run's sessions (registered, or running a statement on the
         * run's tables) from another session.
         */
        KILL_BACKEND,
        /** {@code pg_cancel_backend} of one of the run's sessions running a statement; on MariaDB {@code KILL QUERY}. */
        CANCEL_STATEMENT,
        /** {@code Connection.abort} of a connection while a thread runs a statement on it. */
        ABORT_CONNECTION,
        /** The database process stopped (or killed) and started again. */
        RESTART
    }

    private final TortureRun.Config config;
    private final Target target;
    private final String resource;
    private final Schema schema;
    private final History history;
    private final Map<Thread, Connection> inFlight = new ConcurrentHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;
    private volatile Throwable failure;
    private volatile long monitorSession = -1;
    private long reads;

    Faults(TortureRun.Config config, Target target, Schema schema, String resource, History history) {
        this.config = config;
        this.target = target;
        this.schema = schema;
        this.resource = resource;
        this.history = history;
    }

    /** The calling thread is about to run a statement on {@code c}. */
    void enter(Connection c) {
        inFlight.put(Thread.currentThread(), c);
    }

    void leave() {
        inFlight.remove(Thread.currentThread());
    }

    void start(LongSupplier finishedOps) {
        threads.add(new Thread(() -> guard(() -> inject(finishedOps)), "torture-faults"));
        threads.add(new Thread(() -> guard(this::monitor), "torture-monitor"));
        threads.forEach(Thread::start);
    }

    /** Stops injecting and watching; the database is up again when this returns. */
    void stop() throws Exception {
        stopped = true;
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure != null) {
            throw new IllegalStateException("the fault injector or the monitor failed", failure);
        }
    }

    long reads() {
        return reads;
    }

    private interface Loop {
        void run() throws Exception;
    }

    private void guard(Loop loop) {
        try {
            loop.run();
        } catch (Throwable t) {
            failure = t;
        }
    }

    private void inject(LongSupplier finishedOps) throws Exception {
        Random random = new Random(Workload.mix(config.seed(), 0xFA17));
        List<Kind> kinds = new ArrayList<>(config.faults());
        kinds.remove(Kind.RESTART);
        boolean restarts = config.faults().contains(Kind.RESTART) && target.canRestart() && config.restarts() > 0;
        long every = Math.max(1, config.ops() / (config.restarts() + 1));
        long nextRestart = every;
        int restarted = 0;
        Connection observer = null;
        while (!stopped) {
            Thread.sleep((long) (-Math.log(1 - random.nextDouble()) * config.faultMeanMillis()));
            if (restarts && restarted < config.restarts() && finishedOps.getAsLong() >= nextRestart) {
                observer = closeQuietly(observer);
                history.fault("restart", target.restart(random));
                restarted++;
                nextRestart += every;
                continue;
            }
            if (kinds.isEmpty()) {
                continue;
            }
            Kind kind = kinds.get(random.nextInt(kinds.size()));
            try {
                if (kind == Kind.ABORT_CONNECTION) {
                    abortOne(random);
                } else if (target.applicationName() != null) {
                    if (observer == null) {
                        observer = DriverManager.getConnection(observerUrl());
                    }
                    signalOne(observer, kind, random);
                } else if (target.mariadb()) {
                    if (observer == null) {
                        observer = DriverManager.getConnection(observerUrl());
                    }
                    killOne(observer, kind, random);
                }
            } catch (SQLException e) {
                observer = closeQuietly(observer);
            }
        }
        closeQuietly(observer);
    }

    private String observerUrl() {
        String url = target.rawUrl();
        return target.postgres() ? url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + target.applicationName()
                + "-observer" : url;
    }

    private void abortOne(Random random) {
        List<Map.Entry<Thread, Connection>> candidates = new ArrayList<>(inFlight.entrySet());
        if (candidates.isEmpty()) {
            return;
        }
        Map.Entry<Thread, Connection> victim = candidates.get(random.nextInt(candidates.size()));
        try {
            victim.getValue().abort(Runnable::run);
            history.fault("abort-connection", "connection of " + victim.getKey().getName() + " closed under a statement");
        } catch (SQLException e) {
            // already closed
        }
    }

    /** Terminates or cancels one of the run's own sessions, chosen among those busy with a transaction. */
    private void signalOne(Connection observer, Kind kind, Random random) throws SQLException {
        boolean kill = kind == Kind.KILL_BACKEND;
        List<String> candidates = new ArrayList<>();
        try (PreparedStatement ps = observer.prepareStatement("SELECT pid, state, left(query, 70) FROM pg_stat_activity"
                + " WHERE application_name = ? AND datname = current_database() AND state IN ("
                + (kill ? "'active', 'idle in transaction', 'idle in transaction (aborted)'" : "'active'")
                + ") ORDER BY pid")) {
            ps.setString(1, target.applicationName());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    candidates.add(rs.getInt(1) + "\t" + rs.getString(2) + "\t" + rs.getString(3));
                }
            }
        }
        if (candidates.isEmpty()) {
            return;
        }
        String[] victim = candidates.get(random.nextInt(candidates.size())).split("\t", 3);
        try (PreparedStatement ps = observer.prepareStatement(kill ? "SELECT pg_terminate_backend(?)"
                : "SELECT pg_cancel_backend(?)")) {
            ps.setInt(1, Integer.parseInt(victim[0]));
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && rs.getBoolean(1)) {
                    history.fault(kill ? "kill-backend" : "cancel-statement", "pid " + victim[0] + " (" + victim[1]
                            + ": " + victim[2].replace('\n', ' ') + ")");
                }
            }
        }
    }

    /**
     * MariaDB: ends ({@code KILL CONNECTION}) or cancels ({@code KILL QUERY}) one of the run's own sessions, sent from
     * another session. The run's sessions are told apart by what the server shows of them, never by guessing: a
     * session registered in the run's own session table, or one whose running statement names the run's tables (the
     * prefix is unique to the run). The monitor's session is left alone, and so are the driver's checks of the schema
     * at connect (long {@code information_schema} reads): ended there, a pool's new connection fails and HikariCP backs
     * off, so the run would mostly wait for connections instead of testing the fence. Nor the DDL the driver sends at
     * connect ({@code fencing.schema=create}): a short run whose faults met its {@code CREATE TRIGGER IF NOT EXISTS}
     * statements once left the session table with a trigger the server could not read ("Unknown trigger has an error
     * in its body: 'Query was empty'"), failing every later statement on it (MariaDB 10.11.19; not reproduced by
     * ending such statements alone). The hand-over's own reads of the process list are fair game.
     */
    private void killOne(Connection observer, Kind kind, Random random) throws SQLException {
        boolean kill = kind == Kind.KILL_BACKEND;
        String like = schema.epoch().substring(0, schema.epoch().length() - "epoch".length()).replace("_", "\\_") + "%";
        List<String> candidates = new ArrayList<>();
        String sessions = schema.epoch() + "_session";
        String registered = kill ? " OR p.ID IN (SELECT s.conn_id FROM " + sessions + " s)" : "";
        try (PreparedStatement ps = observer.prepareStatement("SELECT p.ID, CONCAT(p.COMMAND, COALESCE(CONCAT("
                + "', registered at token ', (SELECT MAX(s.token) FROM " + sessions + " s WHERE s.conn_id = p.ID)), '')),"
                + " LEFT(COALESCE(p.INFO, ''), 70) FROM information_schema.PROCESSLIST p WHERE p.ID <> CONNECTION_ID()"
                + " AND p.ID <> ? AND ((p.COMMAND = 'Query' AND p.INFO LIKE ? AND (p.INFO NOT LIKE '%information\\_schema%'"
                + " OR p.INFO LIKE '%PROCESSLIST%') AND p.INFO NOT REGEXP '^[[:space:]]*(CREATE|ALTER|DROP)[[:space:]]')"
                + registered + ") ORDER BY p.ID")) {
            ps.setLong(1, monitorSession);
            ps.setString(2, "%" + like);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    candidates.add(rs.getLong(1) + "\t" + rs.getString(2) + "\t" + rs.getString(3));
                }
            }
        } catch (SQLException e) {
            if ("42S02".equals(e.getSQLState())) {
                return; // no session table (statement guard): nothing registered
            }
            throw e;
        }
        if (candidates.isEmpty()) {
            return;
        }
        String[] victim = candidates.get(random.nextInt(candidates.size())).split("\t", 3);
        try (java.sql.Statement s = observer.createStatement()) {
            s.execute((kill ? "KILL CONNECTION " : "KILL QUERY ") + Long.parseLong(victim[0]));
            history.fault(kill ? "kill-backend" : "cancel-statement", "connection " + victim[0] + " (" + victim[1]
                    + ": " + victim[2].replace('\n', ' ') + ")");
        } catch (SQLException e) {
            if (e.getErrorCode() != 1094) { // unknown thread: it ended meanwhile
                throw e;
            }
        }
    }

    /** Reads the mark every few milliseconds; records each value it sees change. */
    private void monitor() throws InterruptedException {
        Connection c = null;
        long last = -1;
        while (!stopped) {
            try {
                if (c == null) {
                    c = DriverManager.getConnection(observerUrl());
                    if (target.mariadb()) {
                        try (java.sql.Statement s = c.createStatement();
                             ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
                            rs.next();
                            monitorSession = rs.getLong(1);
                        }
                    }
                }
                long mark = 0;
                try (PreparedStatement ps = c.prepareStatement("SELECT epoch FROM " + schema.epoch()
                        + " WHERE resource = ?")) {
                    ps.setString(1, resource);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            mark = rs.getLong(1);
                        }
                    }
                }
                reads++;
                if (mark != last) {
                    history.sample(mark);
                    last = mark;
                }
                Thread.sleep(10);
            } catch (SQLException e) {
                c = closeQuietly(c);
                Thread.sleep(50);
            }
        }
        closeQuietly(c);
    }

    private static Connection closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // broken already
            }
        }
        return null;
    }

    static Set<Kind> all() {
        return Set.of(Kind.values());
    }
}
