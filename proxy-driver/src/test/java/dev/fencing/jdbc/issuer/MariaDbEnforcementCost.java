package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.TestDatabase;
import dev.fencing.jdbc.cli.FencingCli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A measured loop, not a test (docs/enforcement.md reports its ratios): what enforcement on MariaDB costs the driver's
 * own writes (statement guard and session fence) and a bulk statement of a client outside it. Alternating passes with
 * the triggers on and off, and on with a procedure without its writer row (the XA lock) to show what that row costs;
 * single-row auto-commit {@code UPDATE}s prepared once. Not a {@code *Test}, so {@code mvn verify} does not
 * run it; run it with {@code mvn -pl proxy-driver -am test -Dtest=MariaDbEnforcementCost
 * -Dsurefire.failIfNoSpecifiedTests=false -Dfencing.enforcement.cost=true} (or {@link #main} with the test class path).
 */
@dev.fencing.jdbc.RequiresMariaDb
public final class MariaDbEnforcementCost {
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "fencing.enforcement.cost", matches = "true")
    void measure() throws Exception {
        main(new String[] {System.getProperty("fencing.enforcement.cost.operations", "2000"),
            System.getProperty("fencing.enforcement.cost.passes", "3"),
            System.getProperty("fencing.enforcement.cost.threads", "1")});
    }

    public static void main(String[] args) throws Exception {
        int operations = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int passes = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        String raw = TestDatabase.mariadbUrl();
        String db = TestDatabase.unique("enfcost");
        String table = db + ".acct";
        String[] fence = {"--url", raw, "--epoch-table", db + ".epoch", "--lease-table", db + ".lease"};
        TestDatabase.exec(raw, "CREATE DATABASE " + db, "CREATE TABLE " + table
                + " (id INT PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB",
                "INSERT INTO " + table + " SELECT seq, 0 FROM seq_1_to_20000");
        try {
            cli(fence, "init");
            cli(fence, "declare", "cost");
            List<Double> raws = new ArrayList<>();
            List<Double> offs = new ArrayList<>();
            List<Double> ons = new ArrayList<>();
            List<Double> noWriter = new ArrayList<>();
            List<Double> sessionOffs = new ArrayList<>();
            List<Double> sessionOns = new ArrayList<>();
            List<Double> bulkOff = new ArrayList<>();
            List<Double> bulkOn = new ArrayList<>();
            List<Double> bulkNoWriter = new ArrayList<>();
            List<Connection> fenced = new ArrayList<>();
            List<Connection> sessions = new ArrayList<>();
            List<Connection> plain = new ArrayList<>();
            dev.fencing.sql.MariaDbEnforceSql sql = new dev.fencing.sql.MariaDbEnforceSql(
                    dev.fencing.sql.EpochTable.resolved(db, "epoch"), dev.fencing.sql.EpochTable.resolved(db, "lease"));
            // the procedure without its writer row (XA, docs/enforcement.md): what the writer row costs, in this run
            String writerRow = "  INSERT INTO " + sql.writerTable();
            int at = sql.createProcedure().indexOf(writerRow);
            int end = sql.createProcedure().indexOf(";\n", at) + ";\n".length();
            String withoutWriterRow = sql.createProcedure().substring(0, at) + sql.createProcedure().substring(end);
            try {
                for (int t = 0; t < threads; t++) {
                    fenced.add(TestDatabase.fencedAt(1, raw, "fencing.table=" + db + ".epoch",
                            "fencing.lease.table=" + db + ".lease", "fencing.resource=cost"));
                    plain.add(DriverManager.getConnection(raw));
                    try (Statement s = plain.get(t).createStatement()) {
                        s.execute("SET @fencing_resource = 'cost', @fencing_token = 1");
                    }
                }
                // the first mark by one connection: concurrent first writers of a resource without a row can deadlock
                // on InnoDB (the duplicate key's shared lock, then the advance), which is not what this measures
                loop(fenced.subList(0, 1), table, 100);
                cli(fence, "enforce", table, "--resource", "cost"); // creates the session table for the session fence
                for (int t = 0; t < threads; t++) {
                    sessions.add(TestDatabase.fencedAt(1, raw, "fencing.table=" + db + ".epoch",
                            "fencing.lease.table=" + db + ".lease", "fencing.resource=cost", "fencing.guard=session"));
                }
                loop(fenced, table, 500); // warm up
                loop(sessions, table, 500);
                loop(plain, table, 500);
                for (int pass = 0; pass < passes; pass++) {
                    cli(fence, "enforce", "--off", table);
                    raws.add(loop(plain, table, operations));
                    offs.add(loop(fenced, table, operations));
                    sessionOffs.add(loop(sessions, table, operations));
                    bulkOff.add(bulk(plain.get(0), table));
                    if (pass % 2 == 1) { // every other pass without the writer row first, so order favours neither
                        cli(fence, "enforce", table, "--resource", "cost");
                        TestDatabase.exec(raw, withoutWriterRow);
                        noWriter.add(loop(fenced, table, operations));
                        bulkNoWriter.add(bulk(plain.get(0), table));
                    }
                    cli(fence, "enforce", table, "--resource", "cost");
                    ons.add(loop(fenced, table, operations));
                    sessionOns.add(loop(sessions, table, operations));
                    bulkOn.add(bulk(plain.get(0), table));
                    if (pass % 2 == 0) {
                        TestDatabase.exec(raw, withoutWriterRow);
                        noWriter.add(loop(fenced, table, operations));
                        bulkNoWriter.add(bulk(plain.get(0), table));
                        cli(fence, "enforce", table, "--resource", "cost");
                    }
                }
            } finally {
                for (Connection c : fenced) {
                    c.close();
                }
                for (Connection c : sessions) {
                    c.close();
                }
                for (Connection c : plain) {
                    c.close();
                }
            }
            System.out.printf("single-row auto-commit UPDATE, %d connection(s) in threads, %d operations each x %d"
                    + " passes (ops/s)%n", threads, operations, passes);
            System.out.printf("  raw (no driver, no triggers) %s%n", raws);
            System.out.printf("  driver, enforcement off      %s%n", offs);
            System.out.printf("  driver, enforcement on       %s%n", ons);
            System.out.printf("  on/off per pass              %s  median %.2f%n", ratios(ons, offs), median(ratios(ons, offs)));
            System.out.printf("  on without the writer row    %s%n", noWriter);
            System.out.printf("  on/on without writer row     %s  median %.2f%n", ratios(ons, noWriter),
                    median(ratios(ons, noWriter)));
            System.out.printf("  session fence, off           %s%n", sessionOffs);
            System.out.printf("  session fence, on            %s%n", sessionOns);
            System.out.printf("  session on/off per pass      %s  median %.2f%n", ratios(sessionOns, sessionOffs),
                    median(ratios(sessionOns, sessionOffs)));
            System.out.printf("20,000-row UPDATE by a client with the token (ms): off %s on %s, per row on %.1f us;"
                    + " on without the writer row %s, the writer row per row %.1f us%n", bulkOff, bulkOn,
                    (median(bulkOn) - median(bulkOff)) * 1000 / 20_000, bulkNoWriter,
                    (median(bulkOn) - median(bulkNoWriter)) * 1000 / 20_000);
        } finally {
            TestDatabase.exec(raw, "DROP DATABASE IF EXISTS " + db);
        }
    }

    /** Operations per second of {@code operations} single-row updates on each connection, each in a thread. */
    private static double loop(List<Connection> connections, String table, int operations) throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(connections.size());
        try {
            List<java.util.concurrent.Future<?>> running = new ArrayList<>();
            long start = System.nanoTime();
            for (int t = 0; t < connections.size(); t++) {
                Connection c = connections.get(t);
                int offset = t * 5_000;
                running.add(pool.submit(() -> {
                    try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET n = n + 1 WHERE id = ?")) {
                        for (int i = 0; i < operations; i++) {
                            ps.setInt(1, 1 + (offset + i) % 20_000);
                            ps.executeUpdate();
                        }
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> each : running) {
                each.get();
            }
            return Math.round(operations * connections.size() / ((System.nanoTime() - start) / 1e9));
        } finally {
            pool.shutdownNow();
        }
    }

    /** Milliseconds of one UPDATE of every row. */
    private static double bulk(Connection c, String table) throws Exception {
        try (Statement s = c.createStatement()) {
            long start = System.nanoTime();
            s.executeUpdate("UPDATE " + table + " SET n = n + 1");
            return Math.round((System.nanoTime() - start) / 1e6);
        }
    }

    private static List<Double> ratios(List<Double> a, List<Double> b) {
        List<Double> r = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            r.add(Math.round(a.get(i) / b.get(i) * 100) / 100.0);
        }
        return r;
    }

    private static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }

    private static void cli(String[] fence, String... args) {
        StringWriter out = new StringWriter();
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.addAll(Arrays.asList(fence));
        int code = FencingCli.run(new PrintWriter(out, true), new PrintWriter(out, true), all.toArray(new String[0]));
        if (code != 0) {
            throw new IllegalStateException("fencing " + all + ": " + out);
        }
    }
}
