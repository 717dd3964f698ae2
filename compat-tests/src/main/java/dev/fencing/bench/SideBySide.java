package dev.fencing.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The side-by-side harness's entry point: the raw driver and {@code jdbc:fencing:} on the same database and the
 * same tables, each behind its own HikariCP pool, every workload at every thread count, warmed up, then measured in
 * alternating passes (raw first in even rounds, fenced first in odd ones). Prints a table and writes it as CSV and
 * JSON; see docs/performance.md.
 */
public final class SideBySide {
    /** The token of every fenced writer of a run: all of them write in one epoch. */
    static final long TOKEN = 1;

    private SideBySide() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("side-by-side: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        Report report = run(options);
        System.out.println(report.table());
    }

    /** One whole run as {@code args} describe it; the report is also written to the {@code --out} directory. */
    public static Report run(String... args) throws Exception {
        return run(Options.parse(args));
    }

    static Report run(Options options) throws Exception {
        String suffix = ProcessHandle.current().pid() + "_" + System.currentTimeMillis() % 1_000_000;
        String resource = "bench_" + suffix;
        String epochResource = "bench_epoch_" + suffix;
        Report report = new Report(options, Machine.describe());
        // The run's epoch rows stay: the database refuses deleting a high-water mark (SPEC C9).
        String enforce = System.getProperty(ENFORCE, "").trim();
        try (BenchTables tables = BenchTables.create(options.url(), suffix, options.rows());
             HikariDataSource raw = pool("raw", rawUrl(options.url(), enforce, resource), options.maxThreads());
             HikariDataSource fenced = pool("fenced", mapped(options.url(), tables, resource), options.maxThreads())) {
            if (!enforce.isEmpty()) {
                enforce(options.url(), tables, resource);
            }
            report.database(databaseVersion(raw));
            for (Workload workload : options.workloads()) {
                for (int threads : options.threads()) {
                    report.add(compare(options, raw, fenced, tables, workload, threads));
                }
            }
            report.checkFenced(fenced, resource, TOKEN);
            if (options.epochChange()) {
                progress("epoch change at " + options.maxThreads() + " threads, " + options.epochChanges()
                        + " changes");
                // the epoch changes' own resource, declared as fencing.schema=create declares a pinned one (SPEC C11)
                java.sql.DriverManager.getConnection(fencedUrl(options.url(), epochResource)).close();
                report.epochChange(EpochChange.run(fenced, tables, epochResource, options.maxThreads(),
                        options.epochChanges(), Math.max(0.2, options.seconds() / 5)));
            }
        }
        report.finish(Machine.loadAverage());
        progress("written: " + report.write(options.out()));
        return report;
    }

    private static Report.Row compare(Options options, HikariDataSource raw, HikariDataSource fenced,
                                      BenchTables tables, Workload workload, int threads) throws Exception {
        progress(workload.key() + " at " + threads + " thread(s): warm-up");
        if (options.warmupSeconds() > 0) {
            Phase.run(raw, workload, tables, threads, options.warmupSeconds(), 1);
            Phase.run(fenced, workload, tables, threads, options.warmupSeconds(), 2);
        }
        List<Phase.Result> rawResults = new ArrayList<>();
        List<Phase.Result> fencedResults = new ArrayList<>();
        long[] multiXacts = new long[2]; // raw, fenced
        for (int round = 0; round < options.rounds(); round++) {
            long seed = 100L + round;
            if (round % 2 == 0) {
                rawResults.add(measured(raw, raw, workload, tables, threads, options.seconds(), seed, multiXacts, 0));
                fencedResults.add(measured(raw, fenced, workload, tables, threads, options.seconds(), seed, multiXacts, 1));
            } else {
                fencedResults.add(measured(raw, fenced, workload, tables, threads, options.seconds(), seed, multiXacts, 1));
                rawResults.add(measured(raw, raw, workload, tables, threads, options.seconds(), seed, multiXacts, 0));
            }
        }
        Report.Row row = new Report.Row(workload, threads, Report.Side.of(rawResults), Report.Side.of(fencedResults));
        progress(String.format("%s at %d thread(s): raw %.0f ops/s, fenced %.0f ops/s, ratio %.3f%s", workload.key(),
                threads, row.raw().opsPerSecond(), row.fenced().opsPerSecond(), row.ratio(),
                multiXacts[0] < 0 ? "" : String.format("; MultiXact IDs used: raw %d, fenced %d", multiXacts[0],
                        multiXacts[1])));
        return row;
    }

    /**
     * One measured pass of {@code side}; on PostgreSQL the MultiXact IDs the server handed out meanwhile are added
     * to {@code multiXacts[slot]} (its live counter, {@code mxid_age}, read through {@code raw}), or it is set to -1
     * elsewhere.
     */
    private static Phase.Result measured(HikariDataSource raw, HikariDataSource side, Workload workload,
                                         BenchTables tables, int threads, double seconds, long seed, long[] multiXacts,
                                         int slot) throws Exception {
        long before = multiXactCounter(raw);
        Phase.Result result = Phase.run(side, workload, tables, threads, seconds, seed);
        long after = multiXactCounter(raw);
        if (before < 0 || after < 0) {
            multiXacts[0] = -1;
        } else if (multiXacts[0] >= 0) {
            multiXacts[slot] += after - before;
        }
        return result;
    }

    /** PostgreSQL's next MultiXact ID, read live; -1 on other databases. */
    private static long multiXactCounter(HikariDataSource raw) {
        try (Connection c = raw.getConnection(); java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT mxid_age('1'::xid)")) {
            return rs.next() ? rs.getLong(1) : -1;
        } catch (SQLException notPostgres) {
            return -1;
        }
    }

    /**
     * A system property that puts the run's tables under enforcement ({@code fencing enforce}, PostgreSQL, issue 28)
     * for the fenced side's resource, so every write of the fenced side passes the enforcement trigger too.
     * {@code driver}: the raw side connects with {@code session_replication_role = replica} (a superuser's setting),
     * which skips the trigger, so it stays the unenforced baseline; {@code client}: the raw side connects with the
     * token as a libpq client under {@code fencing exec} would ({@code -c fencing.resource=R -c fencing.token=1}), so
     * it pays the trigger's check as psql does. The epoch and lease tables are those of {@link #FENCED_SETTINGS}'s
     * {@code fencing.table} and {@code fencing.lease.table} (give them a schema of the run's own).
     */
    static final String ENFORCE = "bench.enforce";

    /** The raw side's URL: as given, or with the options {@link #ENFORCE} asks for. */
    static String rawUrl(String url, String enforce, String resource) {
        String options;
        switch (enforce) {
            case "":
                return url;
            case "driver":
                options = "-c session_replication_role=replica";
                break;
            case "client":
                options = "-c fencing.resource=" + resource + " -c fencing.token=" + TOKEN;
                break;
            default:
                throw new IllegalArgumentException("-D" + ENFORCE + " must be driver or client, was " + enforce);
        }
        return url + (url.indexOf('?') < 0 ? '?' : '&') + "options="
                + java.net.URLEncoder.encode(options, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Creates the fence's tables when missing and puts the run's tables under enforcement for {@code resource}. */
    private static void enforce(String url, BenchTables tables, String resource) throws SQLException {
        try (dev.fencing.jdbc.issuer.TokenIssuer issuer = dev.fencing.jdbc.issuer.TokenIssuer.forUrl(url,
                fenceTables())) {
            issuer.createTables();
            progress("enforced: " + issuer.enforce(java.util.List.of(tables.accounts, tables.tellers,
                    tables.branches, tables.history), resource));
        }
    }

    /**
     * A system property ({@code true}) that maps the run's tables to the fenced side's resource with
     * {@code fencing map} before the fenced pool opens (a connection reads the map when it opens, SPEC C11), so each
     * fenced write pays what the map costs: its written names resolved by the database. The epoch table is that of
     * {@link #FENCED_SETTINGS}'s {@code fencing.table} (give it a schema of the run's own: a map in the shared
     * default one would be every other run's too).
     */
    static final String MAP = "bench.map";

    /** {@link #fencedUrl}, after mapping the run's tables when {@link #MAP} asks for it. */
    private static String mapped(String url, BenchTables tables, String resource) throws SQLException {
        if (Boolean.getBoolean(MAP)) {
            try (dev.fencing.jdbc.issuer.TokenIssuer issuer = dev.fencing.jdbc.issuer.TokenIssuer.forUrl(url,
                    fenceTables())) {
                issuer.createTables();
                progress("mapped: " + issuer.map(java.util.List.of(tables.accounts, tables.tellers, tables.branches,
                        tables.history), resource));
            }
        }
        return fencedUrl(url, resource);
    }

    /** The epoch and lease tables {@link #FENCED_SETTINGS} names, as issuer properties. */
    private static java.util.Properties fenceTables() {
        java.util.Properties info = new java.util.Properties();
        for (String setting : System.getProperty(FENCED_SETTINGS, "").split(",")) {
            int eq = setting.indexOf('=');
            if (setting.startsWith("fencing.table=") || setting.startsWith("fencing.lease.table=")) {
                info.setProperty(setting.substring(0, eq).trim(), setting.substring(eq + 1).trim());
            }
        }
        return info;
    }

    /** A system property with more settings for the fenced side, comma-separated (e.g. {@code fencing.guard=session}). */
    static final String FENCED_SETTINGS = "bench.fenced.settings";

    /**
     * The fenced side's URL: the raw URL with {@code jdbc:fencing:}, the run's resource and token, and the settings
     * of {@link #FENCED_SETTINGS}.
     */
    static String fencedUrl(String rawUrl, String resource) {
        java.util.List<String> settings = new java.util.ArrayList<>(java.util.List.of("fencing.resource=" + resource,
                "fencing.token=" + TOKEN, "fencing.schema=create"));
        String extra = System.getProperty(FENCED_SETTINGS, "").trim();
        if (!extra.isEmpty()) {
            settings.addAll(java.util.List.of(extra.split(",")));
        }
        StringBuilder url = new StringBuilder("jdbc:fencing:").append(rawUrl.substring("jdbc:".length()));
        boolean semicolons = rawUrl.startsWith("jdbc:h2:");
        for (String setting : settings) {
            if (semicolons) {
                url.append(';').append(setting);
            } else {
                url.append(url.indexOf("?") < 0 ? '?' : '&').append(setting);
            }
        }
        return url.toString();
    }

    /**
     * A fixed-size pool, every connection opened up front, as pgbench opens its clients. On PostgreSQL its
     * connections are named {@code side-by-side-<name>} in {@code pg_stat_activity}, to tell the sides apart there.
     */
    private static HikariDataSource pool(String name, String url, int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(url);
        if (url.contains(":postgresql:")) {
            config.addDataSourceProperty("ApplicationName", "side-by-side-" + name);
        }
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        return new HikariDataSource(config);
    }

    private static String databaseVersion(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            return meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion();
        }
    }

    static void progress(String line) {
        System.err.println("[side-by-side] " + line);
    }
}
