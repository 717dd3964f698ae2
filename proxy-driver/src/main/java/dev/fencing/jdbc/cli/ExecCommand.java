package dev.fencing.jdbc.cli;

import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.issuer.AcquireOptions;
import dev.fencing.jdbc.issuer.Lease;
import dev.fencing.jdbc.issuer.LeaseLostException;
import dev.fencing.jdbc.issuer.TokenIssuer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code fencing exec}: acquires a lease, runs a command with the token and resource in its environment (in a
 * session of its own, see {@link Child}), renews the lease while the command runs, and stops the command's whole
 * process group (SIGTERM, then SIGKILL after a grace period) as soon as a renewal finds the lease lost, or no
 * renewal got through before the lease ends (each renewal is bounded by the time left), and when the command ends
 * (what it left running).
 */
@Command(name = "exec", mixinStandardHelpOptions = true,
        description = "Run COMMAND under a lease: acquire, start it with $"
        + FencingProperty.DEFAULT_TOKEN_ENV + " and $" + FencingProperty.DEFAULT_RESOURCE_ENV + " set (and the token"
        + " and resource appended to $PGOPTIONS, for psql and other libpq clients, and in an option file named by"
        + " $MARIADB_HOME and $MYSQL_HOME, for the mariadb and mysql clients), renew, stop it"
        + " when the lease is lost, release on exit. Exits with COMMAND's exit code.")
final class ExecCommand implements Callable<Integer> {
    private static final Duration MAX_RENEW_EVERY = Duration.ofSeconds(1);
    /** The shortest wait between two renewals near the time the command must be stopping. */
    private static final Duration MIN_RETRY = Duration.ofMillis(50);
    private static final int MAX_HOLDER = 200;
    private static final SecureRandom RUN_IDS = new SecureRandom();
    private static final String PGOPTIONS = "PGOPTIONS";

    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions db;

    @Option(names = "--resource", required = true, description = "The resource the command writes to; repeat it"
            + " for a job whose writes reach tables of several resources (the first is $"
            + FencingProperty.DEFAULT_RESOURCE_ENV + "; every lease's token is in $" + FencingProperty.DEFAULT_TOKENS_ENV
            + ").")
    List<String> resources;

    @Option(names = "--holder", description = "Who runs it (default: user@host). Each run holds the lease as"
            + " HOLDER/RUN-ID, RUN-ID random (128 bits), so two overlapping runs never share a lease, even in"
            + " containers that repeat host names and PIDs.")
    String holder;

    @Option(names = "--ttl", defaultValue = "30s", converter = DurationConverter.class,
            description = "Lease time to live (default: ${DEFAULT-VALUE}).")
    Duration ttl;

    @Option(names = "--wait", defaultValue = "0s", converter = DurationConverter.class,
            description = "Wait up to this long for another holder's lease to end (default: fail at once, exit 75).")
    Duration wait;

    @Option(names = "--renew-every", converter = DurationConverter.class,
            description = "Renew (and so check) the lease this often (default: a third of the TTL, at most 1s).")
    Duration renewEvery;

    @Option(names = "--grace", defaultValue = "10s", converter = DurationConverter.class,
            description = "After SIGTERM, wait this long before SIGKILL (default: ${DEFAULT-VALUE}).")
    Duration grace;

    @Option(names = "--revoke", description = "Immediate revocation: make the new token the resource's high-water"
            + " mark at acquisition, so a previous holder's writes fail even if they arrive first.")
    boolean revoke;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The command and its arguments (after --).")
    List<String> command;

    @Override
    public Integer call() throws SQLException {
        Duration every = renewEvery != null ? renewEvery : min(ttl.dividedBy(3), MAX_RENEW_EVERY);
        if (every.isZero() || every.isNegative() || every.compareTo(ttl) >= 0) {
            throw new CliException(Exit.USAGE, "--renew-every must be positive and shorter than --ttl");
        }
        if (new java.util.HashSet<>(resources).size() != resources.size()) {
            throw new CliException(Exit.USAGE, "--resource names a resource twice: " + resources);
        }
        PrintWriter err = spec.commandLine().getErr();
        String runHolder = runHolder(holder != null ? holder : defaultHolder());
        try (TokenIssuer issuer = db.issuer()) {
            long asked = System.nanoTime();
            List<Lease> acquired = acquireAll(issuer, runHolder, err);
            if (!wait.isZero() || acquired.size() > 1) {
                // an acquisition may have waited: the leases' time is counted from a renewal now, not from the ask
                asked = System.nanoTime();
                acquired = renewBeforeStart(issuer, acquired);
            }
            List<Lease> leases = acquired;
            Lease primary = leases.stream().filter(l -> l.resource().equals(resources.get(0))).findFirst()
                    .orElseThrow();
            Child child;
            ClientOptionFile options = null;
            try {
                options = ClientOptionFile.write(primary.resource(), primary.token(), System.getenv());
                String home = options.directory().toString();
                child = Child.start(command, Map.of(FencingProperty.DEFAULT_TOKEN_ENV, Long.toString(primary.token()),
                        FencingProperty.DEFAULT_RESOURCE_ENV, primary.resource(),
                        FencingProperty.DEFAULT_TOKENS_ENV, tokens(leases),
                        PGOPTIONS, pgOptions(System.getenv(PGOPTIONS), primary.token(), primary.resource()),
                        ClientOptionFile.MARIADB_HOME, home, ClientOptionFile.MYSQL_HOME, home), grace);
            } catch (IOException e) {
                if (options != null) {
                    options.delete();
                }
                releaseAll(issuer, leases, err);
                throw new CliException(Exit.CANNOT_START, "cannot start " + command.get(0) + ": " + e.getMessage());
            }
            ClientOptionFile written = options;
            Thread hook = new Thread(() -> {
                child.stop();
                releaseAll(issuer, leases, err);
                written.delete();
            }, "fencing-exec-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                return supervise(issuer, leases, asked, child, every, err);
            } finally {
                written.delete();
                removeHook(hook);
            }
        }
    }

    /**
     * Acquires a lease on every resource, in the order of their names, so that two jobs wanting the same resources
     * never wait on each other in a cycle; when one cannot be had, the ones already held are released.
     */
    private List<Lease> acquireAll(TokenIssuer issuer, String runHolder, PrintWriter err) throws SQLException {
        List<Lease> leases = new java.util.ArrayList<>();
        try {
            for (String resource : new java.util.TreeSet<>(resources)) {
                Lease lease = issuer.acquire(resource, runHolder, ttl, new AcquireOptions(wait, revoke, false));
                leases.add(lease);
                err.println("fencing: '" + runHolder + "' holds '" + resource + "' with token " + lease.token());
            }
            return leases;
        } catch (SQLException | RuntimeException failure) {
            releaseAll(issuer, leases, err);
            throw failure;
        }
    }

    /** {@code resource=token} for every lease, separated by spaces: what the driver reads for mapped tables. */
    static String tokens(List<Lease> leases) {
        StringBuilder out = new StringBuilder();
        for (Lease lease : leases) {
            out.append(out.length() == 0 ? "" : " ").append(lease.resource()).append('=').append(lease.token());
        }
        return out.toString();
    }

    /** Renews every lease once, each bounded by {@code within}. */
    private List<Lease> renewAll(TokenIssuer issuer, List<Lease> leases, Duration within) throws SQLException {
        List<Lease> renewed = new java.util.ArrayList<>(leases.size());
        for (Lease lease : leases) {
            renewed.add(issuer.renew(lease, ttl, within));
        }
        return renewed;
    }

    /**
     * Renews until the command ends; stops it when a lease is lost, or when no renewal got through before the leases
     * end. Returns the exit code of {@code exec}.
     *
     * <p>A lease ends no earlier than {@code ttl} after the start of the renewal that last succeeded (the database
     * counts its expiry from when it ran the renewal, which is later), so that start, on this process's monotonic
     * clock, is when the leases' time is counted from. Each round of renewals runs on a thread of its own and is waited
     * for only until the leases end, and its waits for the database are bounded by the same time ({@link
     * TokenIssuer#renew(Lease, Duration, Duration)}); a round that fails sooner is tried again until then.
     */
    private int supervise(TokenIssuer issuer, List<Lease> granted, long grantedAt, Child child, Duration every,
                          PrintWriter err) {
        List<Lease> leases = granted;
        long stopBy = grantedAt + ttl.toNanos();
        ExecutorService renewals = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fencing-exec-renewal");
            t.setDaemon(true);
            return t;
        });
        try {
            while (!child.waitFor(untilNextRenewal(every, stopBy - System.nanoTime()))) {
                long attempt = System.nanoTime();
                long left = stopBy - attempt;
                if (left <= 0) {
                    return stopInTime(child, null, err);
                }
                List<Lease> current = leases;
                Future<List<Lease>> renewal = renewals.submit(() -> renewAll(issuer, current, Duration.ofNanos(left)));
                try {
                    leases = renewal.get(left, TimeUnit.NANOSECONDS);
                    stopBy = attempt + ttl.toNanos();
                } catch (TimeoutException tooLate) {
                    renewal.cancel(true);
                    return stopInTime(child, null, err);
                } catch (ExecutionException failed) {
                    if (failed.getCause() instanceof LeaseLostException lost) {
                        child.stop();
                        err.println(lost.getMessage() + "; stopped " + command.get(0));
                        releaseOthers(issuer, leases, lost, err);
                        return Exit.LOST;
                    }
                    if (!(failed.getCause() instanceof SQLException failure)) {
                        child.stop();
                        throw new IllegalStateException("fencing: renewal failed", failed.getCause());
                    }
                    if (System.nanoTime() - stopBy >= 0) {
                        return stopInTime(child, failure, err);
                    }
                    err.println("fencing: renewal failed, retrying: " + failure.getMessage());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    child.stop();
                    return Exit.LOST;
                }
            }
        } finally {
            renewals.shutdownNow();
        }
        child.stop();   // what the command left running in its group must not outlive the lease
        releaseAll(issuer, leases, err);
        return child.exitCode();
    }

    /**
     * How long to wait before the next renewal: {@code every}, but at most half the time left before the lease ends
     * ({@code leftNanos}), so that a long {@code --renew-every} or a failed renewal still leaves
     * time to try again; at least {@link #MIN_RETRY} (or {@code every} if shorter).
     */
    static Duration untilNextRenewal(Duration every, long leftNanos) {
        long floor = Math.min(every.toNanos(), MIN_RETRY.toNanos());
        return Duration.ofNanos(Math.min(every.toNanos(), Math.max(floor, leftNanos / 2)));
    }

    /** Stops the command because no renewal got through before the leases ended; says so, with the last failure. */
    private int stopInTime(Child child, SQLException failure, PrintWriter err) {
        child.stop();
        err.println("fencing: lease on " + resources + " lost: not renewed before it ended (--ttl "
                + ttl.toMillis() + " ms)" + (failure != null ? " (" + failure.getMessage() + ")" : "") + "; stopped "
                + command.get(0));
        return Exit.LOST;
    }

    /** A renewal of every lease right after acquisitions that may have waited, bounded by the leases' time. */
    private List<Lease> renewBeforeStart(TokenIssuer issuer, List<Lease> leases) throws SQLException {
        try {
            return renewAll(issuer, leases, ttl);
        } catch (SQLException | RuntimeException e) {
            releaseAll(issuer, leases, spec.commandLine().getErr());
            throw e;
        }
    }

    /** After one lease was lost: the others are released (the lost one is no longer this run's). */
    private static void releaseOthers(TokenIssuer issuer, List<Lease> leases, LeaseLostException lost,
                                      PrintWriter err) {
        for (Lease lease : leases) {
            if (!lease.resource().equals(lost.resource())) {
                releaseQuietly(issuer, lease, err);
            }
        }
    }

    private static void releaseAll(TokenIssuer issuer, List<Lease> leases, PrintWriter err) {
        for (Lease lease : leases) {
            releaseQuietly(issuer, lease, err);
        }
    }

    private static void releaseQuietly(TokenIssuer issuer, Lease lease, PrintWriter err) {
        try {
            issuer.release(lease);
        } catch (SQLException e) {
            err.println("fencing: could not release the lease on '" + lease.resource() + "' (it expires by itself): "
                    + e.getMessage());
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is exiting and the hook runs (or ran) anyway
        }
    }

    /**
     * {@code PGOPTIONS} for the command: the existing value with the token and resource appended as custom settings,
     * so every libpq client it starts (psql, Python's psycopg, Go's pgx with libpq semantics, ...) connects with them
     * and an enforced table admits its writes ({@code docs/enforcement.md}). Resource names hold no white space or
     * backslash, so libpq reads each value whole; appended last, they win over any earlier {@code -c} of the same name.
     */
    static String pgOptions(String existing, long token, String resource) {
        String ours = "-c " + dev.fencing.sql.EnforceSql.TOKEN_SETTING + "=" + token + " -c "
                + dev.fencing.sql.EnforceSql.RESOURCE_SETTING + "=" + resource;
        return existing == null || existing.isBlank() ? ours : existing + " " + ours;
    }

    /**
     * The holder this run acquires as: {@code name/RUN-ID}, RUN-ID 128 random bits. Only this run knows it, so
     * acquiring "its own" lease again proves it is the same run; a PID or a host name would not, since every
     * container may repeat them (each JVM is PID 1 of its own PID namespace).
     */
    static String runHolder(String name) {
        byte[] id = new byte[16];
        RUN_IDS.nextBytes(id);
        String runHolder = name + "/" + HexFormat.of().formatHex(id);
        if (name.isBlank() || runHolder.length() > MAX_HOLDER) {
            throw new CliException(Exit.USAGE, "--holder must be 1 to " + (MAX_HOLDER - 33) + " characters (exec"
                    + " appends /RUN-ID), was '" + name + "'");
        }
        return runHolder;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static String defaultHolder() {
        String user = System.getProperty("user.name", "user");
        try {
            return user + "@" + InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return user + "@localhost";
        }
    }
}
