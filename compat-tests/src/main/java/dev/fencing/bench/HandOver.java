package dev.fencing.bench;

import dev.fencing.jdbc.FencedConnection;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How long the session fence's hand-over takes on PostgreSQL and MariaDB (issue 22: under 200 ms with 16 registered
 * sessions):
 * {@code --sessions} connections register at token t ({@code fencing.guard=session}), idle or writing in
 * transactions in a loop ({@code --busy=true}); then a new owner's first write at t + 1 raises the mark, which ends
 * every one of them before it commits. Timed is that one write, on a connection opened beforehand: the new owner's
 * registration attempt, the advance, the trigger that signals the old sessions and waits until the server no longer
 * lists them, the commit; on MariaDB the raise the trigger refuses, the driver's {@code KILL CONNECTION} of each and
 * its wait until the server no longer lists them, the raise again. {@code --raise=sql} (PostgreSQL only) times a
 * plain {@code UPDATE} of the mark on a raw connection instead (the trigger's work alone, as {@code fencing acquire
 * --revoke} would pay it). Each change checks on the server
 * that the old sessions are gone and the mark moved. Everything lives in a schema of the run's own (on MariaDB,
 * tables of the run's own name), dropped at the end.
 *
 * <pre>java -cp compat-tests/target/benchmarks.jar dev.fencing.bench.HandOver --url=jdbc:postgresql://...|jdbc:mariadb://... [--sessions=16]
 *     [--changes=10] [--busy=false] [--raise=driver|sql]</pre>
 */
public final class HandOver {
    private HandOver() {
    }

    public static void main(String[] args) throws Exception {
        String url = Options.DEFAULT_URL;
        int sessions = 16;
        int changes = 10;
        boolean busy = false;
        boolean bySql = false;
        for (String arg : args) {
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            String value = eq < 0 ? "" : arg.substring(eq + 1);
            switch (name) {
                case "--url" -> url = value;
                case "--sessions" -> sessions = Integer.parseInt(value);
                case "--changes" -> changes = Integer.parseInt(value);
                case "--busy" -> busy = Boolean.parseBoolean(value);
                case "--raise" -> bySql = switch (value) {
                    case "sql" -> true;
                    case "driver" -> false;
                    default -> throw new IllegalArgumentException("--raise must be driver or sql, not '" + value + "'");
                };
                default -> {
                    System.err.println("hand-over: unknown option '" + arg + "'; usage: HandOver [--url=RAW_POSTGRES_OR_MARIADB_URL]"
                            + " [--sessions=16] [--changes=10] [--busy=false] [--raise=driver|sql]");
                    System.exit(2);
                }
            }
        }
        boolean mariadb = url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
        if (!url.startsWith("jdbc:postgresql:") && !mariadb) {
            System.err.println("hand-over: the session fence is PostgreSQL's and MariaDB's: give a jdbc:postgresql:,"
                    + " jdbc:mariadb: or jdbc:mysql: URL");
            System.exit(2);
        }
        if (mariadb && bySql) {
            System.err.println("hand-over: on MariaDB a raise by plain SQL is refused while the old sessions live (the"
                    + " trigger cannot end them): use --raise=driver");
            System.exit(2);
        }
        double[] millis = run(url, sessions, changes, busy, bySql);
        double[] sorted = millis.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "hand-over, %d registered sessions (%s), %d changes, raised by %s:"
                        + " median %.1f ms, min %.1f ms, max %.1f ms; each: %s%n", sessions, busy ? "busy" : "idle",
                changes, bySql ? "SQL on a raw connection" : "the new owner's first write", sorted[(sorted.length - 1) / 2],
                sorted[0], sorted[sorted.length - 1], Arrays.toString(Arrays.stream(millis)
                        .map(m -> Math.round(m * 10) / 10.0).toArray()));
    }

    static double[] run(String url, int sessions, int changes, boolean busy, boolean bySql) throws Exception {
        boolean mariadb = !url.startsWith("jdbc:postgresql:");
        String schema = "bench_handover_" + ProcessHandle.current().pid() + "_" + System.currentTimeMillis() % 1_000_000;
        // MariaDB: tables of the run's own name in the URL's database (a schema there is a database)
        String epoch = schema + (mariadb ? "_fence" : ".fence");
        String data = schema + (mariadb ? "_data" : ".data");
        String resource = "handover";
        String fenced = "jdbc:fencing:" + url.substring("jdbc:".length()) + (url.contains("?") ? "&" : "?")
                + "fencing.guard=session&fencing.schema=create&fencing.table=" + epoch + "&fencing.resource=" + resource;
        StringBuilder rows = new StringBuilder();
        for (int i = 0; i <= sessions; i++) {
            rows.append(i == 0 ? "" : ", ").append('(').append(i).append(", 0)");
        }
        if (mariadb) {
            exec(url, "CREATE TABLE " + data + " (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB",
                    "INSERT INTO " + data + " VALUES " + rows);
        } else {
            exec(url, "CREATE SCHEMA " + schema, "CREATE TABLE " + data + " (id INT PRIMARY KEY, v INT NOT NULL)",
                    "INSERT INTO " + data + " VALUES " + rows);
        }
        double[] millis = new double[changes];
        try {
            try (Connection first = open(fenced, 1)) {
                write(first, data, 0);
            }
            for (int k = 0; k < changes; k++) {
                long token = k + 1;
                List<Connection> old = new ArrayList<>();
                List<Integer> pids = new ArrayList<>();
                List<Thread> writers = new ArrayList<>();
                AtomicBoolean stop = new AtomicBoolean();
                try {
                    for (int i = 1; i <= sessions; i++) {
                        Connection c = open(fenced, token);
                        old.add(c);
                        write(c, data, i); // registers
                        pids.add(pid(c, mariadb));
                    }
                    long registered = number(url, "SELECT count(*) FROM " + epoch + "_session WHERE resource = '"
                            + resource + "' AND " + (mariadb ? "conn_id" : "pid") + " <> 0 AND token = " + token);
                    if (registered != sessions) {
                        throw new IllegalStateException(registered + " of " + sessions + " sessions registered");
                    }
                    if (busy) {
                        for (int i = 0; i < sessions; i++) {
                            Connection c = old.get(i);
                            int id = i + 1;
                            Thread writer = new Thread(() -> {
                                try {
                                    c.setAutoCommit(false);
                                    while (!stop.get()) {
                                        write(c, data, id);
                                        c.commit();
                                    }
                                } catch (SQLException ended) {
                                    // the hand-over ended this session
                                }
                            }, "handover-writer-" + i);
                            writers.add(writer);
                            writer.start();
                        }
                        Thread.sleep(200);
                    }
                    if (bySql) {
                        try (Connection raise = DriverManager.getConnection(url); Statement s = raise.createStatement()) {
                            s.execute("SELECT 1");
                            long started = System.nanoTime();
                            s.executeUpdate("UPDATE " + epoch + " SET epoch = " + (token + 1) + " WHERE resource = '"
                                    + resource + "'");
                            millis[k] = (System.nanoTime() - started) / 1e6;
                        }
                    } else {
                        try (Connection next = open(fenced, token + 1); Statement s = next.createStatement()) {
                            s.executeQuery("SELECT 1").close();
                            long started = System.nanoTime();
                            write(next, data, 0);
                            millis[k] = (System.nanoTime() - started) / 1e6;
                        }
                    }
                    stop.set(true);
                    for (Thread writer : writers) {
                        writer.join();
                    }
                    long alive = number(url, "SELECT count(*) FROM " + (mariadb
                            ? "information_schema.PROCESSLIST WHERE ID IN (" : "pg_stat_activity WHERE pid IN (")
                            + pids.toString().replaceAll("[\\[\\]]", "") + ")");
                    long mark = number(url, "SELECT epoch FROM " + epoch + " WHERE resource = '" + resource + "'");
                    if (alive != 0 || mark != token + 1) {
                        throw new IllegalStateException("after the hand-over " + alive + " old sessions are alive, mark "
                                + mark);
                    }
                } finally {
                    stop.set(true);
                    for (Connection c : old) {
                        try {
                            c.close();
                        } catch (SQLException ended) {
                            // ended by the hand-over
                        }
                    }
                }
            }
        } finally {
            if (mariadb) {
                exec(url, "DROP TABLE IF EXISTS " + data + ", " + epoch + "_session, " + epoch + "_resource, " + epoch);
            } else {
                exec(url, "DROP SCHEMA " + schema + " CASCADE");
            }
        }
        return millis;
    }

    private static Connection open(String fenced, long token) throws SQLException {
        Connection c = DriverManager.getConnection(fenced);
        c.unwrap(FencedConnection.class).setFencingToken(token);
        return c;
    }

    private static void write(Connection c, String data, int id) throws SQLException {
        try (Statement s = c.createStatement()) {
            if (s.executeUpdate("UPDATE " + data + " SET v = v + 1 WHERE id = " + id) != 1) {
                throw new IllegalStateException("expected one row updated");
            }
        }
    }

    private static int pid(Connection c, boolean mariadb) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(mariadb ? "SELECT CONNECTION_ID()"
                : "SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static long number(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void exec(String url, String... sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            for (String one : sql) {
                s.execute(one);
            }
        }
    }
}
