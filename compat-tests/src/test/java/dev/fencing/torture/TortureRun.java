package dev.fencing.torture;

import dev.fencing.jdbc.issuer.TokenIssuer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * One torture run end to end: creates the run's tables, lets the owners write while faults are injected, reads the
 * final state, checks it against the history and reports the figures. The seed comes from {@code -Dtorture.seed}
 * (else the test's default) and the number of operations from {@code -Dtorture.ops}; both are printed with every
 * report and every failure, and the same seed replays the same plan.
 */
final class TortureRun {
    /** How a run behaves; every random choice derives from {@code seed}. */
    record Config(long seed, int ops, int owners, int maxWriters, int poolSize, Duration ttl, double pPause,
                  double pLongPause, double pForce, double pRevoke, double pTight, long faultMeanMillis,
                  Set<Faults.Kind> faults, int restarts, boolean naive, Duration deadline, String guard,
                  int isolation) {

        /**
         * The defaults for {@code ops} operations, overridden by {@code -Dtorture.seed} and {@code -Dtorture.ops};
         * {@code -Dtorture.deadline.seconds} bounds the run's time (else a second per five operations, at least two
         * minutes): a run cut short there is still checked and reported, then fails as late.
         */
        static Config standard(long defaultSeed, int defaultOps, Set<Faults.Kind> faults) {
            long seed = Long.getLong("torture.seed", defaultSeed);
            int ops = Integer.getInteger("torture.ops", defaultOps);
            int restarts = Math.max(2, ops / 10_000);
            return new Config(seed, ops, 4, 3, 6, Duration.ofMillis(150), 0.15, 0.1, 0.2, 0.25, 0.05, 40, faults,
                    restarts, false, Duration.ofSeconds(Long.getLong("torture.deadline.seconds",
                    Math.max(120, ops / 5))), "statement", Connection.TRANSACTION_READ_COMMITTED);
        }

        Config naiveWriters() {
            return new Config(seed, ops, owners, maxWriters, poolSize, ttl, pPause, pLongPause, pForce, pRevoke, pTight,
                    faultMeanMillis, faults, restarts, true, deadline, guard, isolation);
        }

        /** The same run with {@code fencing.guard} set to {@code guard} ({@code statement} or {@code session}). */
        Config guard(String guard) {
            return new Config(seed, ops, owners, maxWriters, poolSize, ttl, pPause, pLongPause, pForce, pRevoke, pTight,
                    faultMeanMillis, faults, restarts, naive, deadline, guard, isolation);
        }

        /** The same run with every writer's transactions at {@code isolation} (a {@code Connection} constant). */
        Config isolation(int isolation) {
            return new Config(seed, ops, owners, maxWriters, poolSize, ttl, pPause, pLongPause, pForce, pRevoke, pTight,
                    faultMeanMillis, faults, restarts, naive, deadline, guard, isolation);
        }
    }

    /** What a run produced. */
    record Result(Config config, String target, History history, FinalState state, List<Checker.Violation> violations,
                  String report) {
    }

    private TortureRun() {
    }

    static Result run(Target target, Config config) throws Exception {
        String prefix = Target.unique("tt");
        String resource = prefix + "_res";
        Schema schema = new Schema(prefix, target.postgres(), target.mariadb());
        Properties tables = new Properties();
        tables.setProperty("fencing.table", schema.epoch());
        tables.setProperty("fencing.lease.table", schema.lease());
        try (TokenIssuer issuer = TokenIssuer.forUrl(target.rawUrl(), tables)) {
            issuer.createTables();
        }
        try (Connection raw = DriverManager.getConnection(target.rawUrl())) {
            schema.create(raw);
        }
        try {
            History history = new History(config.seed());
            Faults faults = new Faults(config, target, schema, resource, history);
            Workload workload = new Workload(config, target, schema, resource, history, faults);
            long started = System.nanoTime();
            faults.start(workload.finished::get);
            boolean inTime;
            try {
                inTime = workload.run(started + config.deadline().toNanos());
            } finally {
                faults.stop();
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            FinalState state;
            try (Connection raw = DriverManager.getConnection(target.rawUrl())) {
                state = FinalState.read(raw, schema, resource);
            }
            List<Checker.Violation> violations = Checker.check(history, state);
            String report = report(target.name(), config, history, state, violations, millis, faults.reads());
            System.out.println(report);
            write(target.name(), config, report, history.faultLog());
            if (!inTime) {
                // The deadline guards against a hang, not against a slow machine: a run it cut short is checked like
                // any other (above), and fails only when too little of it ran to mean anything.
                int floor = Math.min(config.ops(), Math.max(200, config.ops() / 4));
                if (history.ops().size() < floor) {
                    fail("torture run on " + target.name() + " did only " + history.ops().size() + " of "
                            + config.ops() + " operations within " + config.deadline() + " (at least " + floor
                            + " needed); " + rerun(config) + "\n" + report);
                }
                System.out.println("torture run on " + target.name() + ": the deadline of " + config.deadline()
                        + " cut the run at " + history.ops().size() + " of " + config.ops() + " operations (a loaded"
                        + " machine); their history was checked");
            }
            return new Result(config, target.name(), history, state, violations, report);
        } catch (Exception | AssertionError e) {
            throw new AssertionError("torture run on " + target.name() + " failed: " + e + "; " + rerun(config), e);
        } finally {
            try (Connection raw = DriverManager.getConnection(target.rawUrl())) {
                schema.drop(raw);
            } catch (java.sql.SQLException e) {
                System.err.println("could not drop the torture tables " + prefix + "_*: " + e);
            }
        }
    }

    /** Fails with the seed and the first counter-examples unless the run found no violation. */
    static void assertNoViolations(Result result) {
        if (!result.violations().isEmpty()) {
            result.violations().forEach(violation -> System.out.println("VIOLATION " + violation));
            StringBuilder message = new StringBuilder().append(result.violations().size()).append(" violations in the")
                    .append(" torture run on ").append(result.target()).append("; ").append(rerun(result.config()));
            for (Checker.Violation violation : result.violations().subList(0, Math.min(5, result.violations().size()))) {
                message.append("\n\n").append(violation);
            }
            fail(message.toString());
        }
    }

    static String rerun(Config config) {
        return "seed " + config.seed() + " (rerun with -Dtorture.seed=" + config.seed() + " -Dtorture.ops="
                + config.ops() + ")";
    }

    private static String report(String target, Config config, History history, FinalState state,
                                 List<Checker.Violation> violations, long millis, long reads) {
        List<Op> ops = history.ops();
        Map<String, Integer> outcomes = new TreeMap<>();
        Map<String, Integer> refusals = new TreeMap<>();
        Map<String, Integer> failures = new TreeMap<>();
        int unknownPresent = 0;
        for (Op op : ops) {
            outcomes.merge(op.outcome.name().toLowerCase(), 1, Integer::sum);
            if (op.outcome == Op.Outcome.REFUSED) {
                refusals.merge(op.sqlState, 1, Integer::sum);
            } else if (op.outcome == Op.Outcome.FAILED || op.outcome == Op.Outcome.UNKNOWN) {
                failures.merge(String.valueOf(op.sqlState), 1, Integer::sum);
                if (op.outcome == Op.Outcome.UNKNOWN && state.ops().containsKey(op.id)) {
                    unknownPresent++;
                }
            }
        }
        List<History.Acquisition> acquisitions = history.acquisitions();
        long newTokens = acquisitions.stream().filter(History.Acquisition::newEpoch).count();
        long forced = acquisitions.stream().filter(a -> a.newEpoch() && a.force()).count();
        long revoked = acquisitions.stream().filter(a -> a.newEpoch() && a.revoke()).count();
        return "torture run on " + target + (config.naive() ? " (PLANTED BUG: naive check-then-write)" : "")
                + ", seed " + config.seed() + ": " + ops.size() + " operations in " + millis / 1000.0 + " s"
                + "\n  outcomes: " + outcomes + "; unknown outcomes found committed: " + unknownPresent
                + "\n  refusals by SQLState: " + refusals
                + "\n  failures by SQLState: " + failures
                + "\n  leases: " + acquisitions.size() + " acquisitions, " + newTokens + " new tokens (takeovers), "
                + forced + " forced, " + revoked + " with immediate revocation; " + state.marks().size()
                + " high-water mark changes, final mark " + state.mark()
                + "\n  faults injected: " + history.faultCounts()
                + "\n  monitor: " + reads + " reads of the mark, " + history.samples().size() + " distinct values seen"
                + "\n  violations: " + violations.size() + (violations.isEmpty() ? "" : " by clause "
                + violations.stream().collect(java.util.stream.Collectors.groupingBy(Checker.Violation::clause,
                TreeMap::new, java.util.stream.Collectors.counting())));
    }

    /** Writes the report, and every injected fault with its moment and victim, under {@code target/torture}. */
    private static void write(String target, Config config, String report, List<String> faultLog) {
        try {
            Path dir = Path.of("target", "torture");
            Files.createDirectories(dir);
            String name = target + "-" + config.seed() + "-" + config.ops();
            Files.writeString(dir.resolve(name + ".txt"), report + "\n", StandardCharsets.UTF_8);
            Files.write(dir.resolve(name + "-faults.txt"), faultLog, StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            System.err.println("could not write the torture report: " + e);
        }
    }
}
