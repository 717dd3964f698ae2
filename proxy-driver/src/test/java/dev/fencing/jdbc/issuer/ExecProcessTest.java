package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.FaultProxy;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.TestDatabase;
import dev.fencing.jdbc.cli.FencingCli;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code fencing exec} with real processes (SPEC C7): the job is a child process that writes through the fencing
 * driver with the token from its environment; some tests run {@code fencing exec} itself as a process too.
 */
abstract class ExecProcessTest {
    @TempDir
    Path dir;
    IssuerFixture db;
    String resource;

    abstract String rawUrl(Path dir);

    @BeforeEach
    void createTables() throws SQLException {
        db = new IssuerFixture(rawUrl(dir));
        resource = TestDatabase.unique("nightly");
    }

    @AfterEach
    void dropTables() throws SQLException {
        db.close();
    }

    @Test
    void overlappingRunsOfTheSameJobSecondFailsOrWaits_C7() throws Exception {
        Path stop = dir.resolve("stop");
        Process first = start(dir.resolve("first.err"), exec("--ttl", "10s", "--", "sh", "-c",
                "while [ ! -e '" + stop + "' ]; do sleep 0.05; done"));
        try {
            await(() -> holderOf(resource) != null, "the first run holds the lease");
            long firstToken = db.issued(resource);

            Result refused = cli(exec("--ttl", "10s", "--", "sh", "-c", "exit 0"));
            assertEquals(75, refused.code, refused.err);
            assertTrue(refused.err.contains("is held by"), refused.err);

            Path tokenFile = dir.resolve("token");
            CompletableFuture<Result> waiting = CompletableFuture.supplyAsync(() -> cli(exec("--ttl", "10s",
                    "--wait", "30s", "--", "sh", "-c", "echo $FENCING_TOKEN $FENCING_RESOURCE > '" + tokenFile
                            + "'; exit 7")));
            Thread.sleep(300);
            assertFalse(Files.exists(tokenFile), "the waiting run has not started its command");
            Files.createFile(stop);
            assertEquals(0, first.waitFor(30, TimeUnit.SECONDS) ? first.exitValue() : -1);
            Result second = waiting.get(30, TimeUnit.SECONDS);
            assertEquals(7, second.code, "the command's exit code is passed through: " + second.err);
            assertEquals((firstToken + 1) + " " + resource, Files.readString(tokenFile).trim());
            assertEquals(null, holderOf(resource), "exec released the lease on exit");
        } finally {
            first.destroyForcibly();
        }
    }

    @Test
    void overlappingRunsWithTheSamePidAndHostNeverShareALease_C7() throws Exception {
        // Both runs live in this JVM: one PID, one host name, one --holder, as in two containers where each JVM is
        // PID 1 on a host of the same name.
        Path stop = dir.resolve("stop");
        Path tokens = dir.resolve("tokens");
        CompletableFuture<Result> first = CompletableFuture.supplyAsync(() -> cli(exec("--ttl", "10s", "--", "sh",
                "-c", "echo $FENCING_TOKEN >> '" + tokens + "'; while [ ! -e '" + stop + "' ]; do sleep 0.05; done")));
        try {
            await(() -> holderOf(resource) != null, "the first run holds the lease");
            Result second = cli(exec("--ttl", "10s", "--", "sh", "-c", "echo $FENCING_TOKEN >> '" + tokens + "'"));
            assertEquals(75, second.code, "the second run is another holder: " + second.err);
        } finally {
            Files.write(stop, new byte[0]);
        }
        assertEquals(0, first.get(30, TimeUnit.SECONDS).code);
        assertEquals(List.of(Long.toString(db.issued(resource))), Files.readAllLines(tokens), "one run ran");
    }

    @Test
    void overlappingRunsInSeparatePidNamespacesNeverShareALease_C7() throws Exception {
        assumeTrue(PID_NAMESPACES, "unshare -p -f --mount-proc is not allowed here");
        Path stop = dir.resolve("stop");
        Path tokens = dir.resolve("tokens");
        Process first = startInPidNamespace(dir.resolve("first.err"), exec("--ttl", "10s", "--", "sh", "-c",
                "echo $FENCING_TOKEN >> '" + tokens + "'; while [ ! -e '" + stop + "' ]; do sleep 0.05; done"));
        try {
            await(() -> holderOf(resource) != null, "the first run holds the lease");
            Process second = startInPidNamespace(dir.resolve("second.err"), exec("--ttl", "10s", "--", "sh", "-c",
                    "echo $FENCING_TOKEN >> '" + tokens + "'"));
            assertTrue(second.waitFor(60, TimeUnit.SECONDS));
            assertEquals(75, second.exitValue(), Files.readString(dir.resolve("second.err")));
            Files.write(stop, new byte[0]);
            assertTrue(first.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, first.exitValue(), Files.readString(dir.resolve("first.err")));
            assertTrue(Files.readString(dir.resolve("first.err")).contains("/"), "holder HOLDER/RUN-ID");
            assertEquals(List.of(Long.toString(db.issued(resource))), Files.readAllLines(tokens), "one run ran");
        } finally {
            first.destroyForcibly();
        }
    }

    @Test
    void aJobWritingTablesOfSeveralResourcesHoldsALeaseOnEachAndGetsEveryToken_C11() throws Exception {
        String other = resource + "-b";
        String own = TestDatabase.unique("jobown");
        String mapped = TestDatabase.unique("jobmapped");
        TestDatabase.exec(db.raw, "CREATE TABLE " + own + " (n INT)", "CREATE TABLE " + mapped + " (n INT)");
        Result map = cli(with(db.cliDb(), "map", mapped, "--resource", other));
        assertEquals(0, map.code, map.err);
        Path seen = dir.resolve("seen");
        String[] job = javaCommand(MappedTablesJob.class.getName(), db.fenced(), seen.toString(), own, mapped)
                .toArray(new String[0]);

        Result both = cli(exec("--resource", other, "--ttl", "10s", "--", job));
        assertEquals(0, both.code, both.err);
        long first = db.issued(resource);
        long second = db.issued(other);
        assertEquals(List.of("tokens=" + resource + "=" + first + " " + other + "=" + second, own + " ok",
                mapped + " ok"), lines(seen));
        assertNull(holderOf(resource), "released");
        assertNull(holderOf(other), "released");

        Result one = cli(exec("--ttl", "10s", "--", job));
        assertEquals(0, one.code, one.err);
        assertEquals(List.of("tokens=" + resource + "=" + db.issued(resource), own + " ok",
                mapped + " refused " + FencingSqlState.INVALID_TOKEN), lines(seen));

        Result twice = cli(exec("--resource", resource, "--", "true"));
        assertEquals(64, twice.code, twice.err);
        assertTrue(twice.err.contains("twice"), twice.err);
    }

    @Test
    void takenOverJobIsStoppedAndItsLateWritesAreFenced_C7() throws Exception {
        Path log = dir.resolve("job.log");
        CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> cli(exec("--ttl", "5s",
                "--renew-every", "200ms", "--grace", "10s", "--", job(log, 0))));
        await(() -> count(log, "ok ") >= 2, "the job writes with its token");
        long oldToken = db.issued(resource);
        try (TokenIssuer operator = db.issuer()) {
            Lease takeover = operator.acquire(resource, "operator", Duration.ofSeconds(30),
                    AcquireOptions.DEFAULT.takeOver(true).revokeImmediately(true));
            long oldRows = db.rows(oldToken);
            Result result = run.get(30, TimeUnit.SECONDS);
            assertEquals(76, result.code, result.err);
            assertTrue(result.err.contains("lost"), result.err);
            assertTrue(lines(log).contains("late refused " + FencingSqlState.STALE_TOKEN + " -1"),
                    "the job's late write on SIGTERM was fenced: " + lines(log));
            assertEquals(oldRows, db.rows(oldToken), "no write of the old token after the takeover");
            db.write(resource, takeover.token(), "operator");
        }
    }

    @Test
    void aJobThatIgnoresSigtermAndDoubleForksAWriterIsStoppedEntirelyOnTakeover_C7() throws Exception {
        CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> cli(exec("--ttl", "5s",
                "--renew-every", "200ms", "--grace", "1s", "--", stubbornJob())));
        long[] pids = awaitStubbornJob();
        try {
            try (TokenIssuer operator = db.issuer()) {
                operator.acquire(resource, "operator", Duration.ofSeconds(30), AcquireOptions.DEFAULT.takeOver(true));
            }
            Result result = run.get(30, TimeUnit.SECONDS);
            assertEquals(76, result.code, result.err);
            assertFalse(running(pids[0]), "the job, which ignores SIGTERM, was killed");
            assertFalse(running(pids[1]), "the writer it double-forked (no longer its descendant) was killed");
            assertWriterStopped();
        } finally {
            kill(pids);
        }
    }

    @Test
    void whenExecIsKilledItsJobStopsWithinTheGracePeriod_C7() throws Exception {
        Process exec = start(dir.resolve("exec.err"), exec("--ttl", "30s", "--grace", "1s", "--", stubbornJob()));
        long[] pids = awaitStubbornJob();
        try {
            exec.destroyForcibly();
            assertTrue(exec.waitFor(30, TimeUnit.SECONDS));
            long killed = System.nanoTime();
            await(() -> !running(pids[0]) && !running(pids[1]), "the job and its writer stop after exec died");
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            assertTrue(took < 6_000, "stopped " + took + " ms after exec died (grace 1 s)");
            assertWriterStopped();
        } finally {
            kill(pids);
        }
    }

    @Test
    void jobOutlivingAPausedRenewalCannotWriteAfterTheNewOwnersFirstWrite_C7() throws Exception {
        Path log = dir.resolve("job.log");
        Process exec = start(dir.resolve("exec.err"), exec("--ttl", "3s", "--renew-every", "200ms", "--",
                job(log, 0)));
        try {
            await(() -> count(log, "ok ") >= 2, "the job writes with its token");
            long oldToken = db.issued(resource);
            signal("STOP", exec.pid());
            Lease next;
            try (TokenIssuer other = db.issuer()) {
                next = other.acquire(resource, "next", Duration.ofSeconds(30),
                        AcquireOptions.DEFAULT.waitUpTo(Duration.ofSeconds(20)));
            }
            assertEquals(oldToken + 1, next.token(), "the paused holder's lease expired by the database clock");
            db.write(resource, next.token(), "new owner");
            long oldRows = db.rows(oldToken);
            int refusalsBefore = count(log, "refused " + FencingSqlState.STALE_TOKEN);
            await(() -> count(log, "refused " + FencingSqlState.STALE_TOKEN) >= refusalsBefore + 2,
                    "the old job keeps trying and is refused");
            assertEquals(oldRows, db.rows(oldToken), "no write of the old token after the new owner's first write");
            signal("CONT", exec.pid());
            assertTrue(exec.waitFor(30, TimeUnit.SECONDS));
            assertEquals(76, exec.exitValue(), Files.readString(dir.resolve("exec.err")));
            assertTrue(Files.readString(dir.resolve("exec.err")).contains("lost"));
        } finally {
            signal("CONT", exec.pid());
            exec.destroyForcibly();
        }
    }

    /**
     * The network between {@code fencing exec} and its database stops answering while the job runs (a partition TCP
     * rides out: nothing is lost and nothing arrives), and exec's URL has no {@code socketTimeout}: each renewal is
     * bounded by the time left before the lease ends, so exec stops the job and exits 76 instead of hanging in a
     * renewal (before this it hung for as long as the network did, and the job ran on). The database is the judge of
     * when the lease ended: nothing renewed it after the network stopped, and exec returned (its job gone) at that
     * end, give or take the job's grace period, not long before it and not later.
     */
    @Test
    void renewalThatHangsStopsTheJobWhenTheLeaseEnds_C7() throws Exception {
        assumeTrue(!db.raw.startsWith("jdbc:h2:"), "an embedded H2 has no network between exec and the database");
        Path log = dir.resolve("job.log");
        try (FaultProxy proxy = FaultProxy.to(db.raw)) {
            List<String> args = new ArrayList<>(List.of("exec", "--url", TestDatabase.fenced(proxy.url(db.raw),
                    "fencing.table=" + db.epoch, "fencing.lease.table=" + db.lease), "--resource", resource,
                    "--holder", "test", "--ttl", "6s", "--renew-every", "200ms", "--grace", "1s", "--"));
            args.addAll(List.of(job(log, 0)));
            CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> cli(args));
            await(() -> count(log, "ok ") >= 2, "the job writes with its token");
            FaultProxy.Link link = proxy.last(); // exec's issuer connection: the job connects straight to the server
            link.hold();
            long held = System.nanoTime();
            Result result = run.get(30, TimeUnit.SECONDS);
            java.time.Instant returned = java.time.Instant.now(); // the job is gone: exec returns after it stopped
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - held);
            LeaseStatus lease = statusOf(resource);
            assertEquals(76, result.code, result.err);
            assertTrue(result.err.contains("lost: not renewed before it ended"), result.err);
            java.time.Instant end = lease.expiresAt();
            assertTrue(lease.holder().startsWith("test/") && returned.isAfter(end.minusSeconds(2))
                            && returned.isBefore(end.plusSeconds(5)),
                    "exec returned at " + returned + ", at the lease's end as the database recorded it (grace 1 s): "
                            + lease + "; exec took " + tookMs + " ms after the network stopped");
            assertTrue(tookMs >= 3_000, "the renewals had until the lease's end, 6 s after the last one that got"
                    + " through; exec gave up after " + tookMs + " ms");
            int lines = lines(log).size();
            Thread.sleep(300);
            assertEquals(lines, lines(log).size(), "nothing of the job runs any more");
            link.reset();
        }
    }

    @Test
    void jobWithAForgedTokenIsRefusedAsNeverIssued_C7() throws Exception {
        try (TokenIssuer issuer = db.issuer()) {
            issuer.acquire(resource, "owner", Duration.ofSeconds(30));
        }
        Path log = dir.resolve("forged.log");
        ProcessBuilder forged = new ProcessBuilder(javaCommand(FencedJob.class.getName(),
                db.fenced(), db.data, "0", "1", log.toString()));
        forged.environment().put("FENCING_TOKEN", "1000000");
        forged.environment().put("FENCING_RESOURCE", resource);
        Process p = forged.redirectErrorStream(true).redirectOutput(dir.resolve("forged.out").toFile()).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertTrue(lines(log).contains("refused " + FencingSqlState.TOKEN_NOT_ISSUED + " 1"), lines(log).toString());
        assertEquals(1, db.issued(resource));
        assertEquals(0, db.mark(resource));
    }

    @Test
    void reconcileRepairsALeaseTableRestoredFromAnOlderCopy_C7() throws Exception {
        String backup = TestDatabase.unique("lease_backup");
        try (TokenIssuer issuer = db.issuer()) {
            issuer.release(issuer.acquire(resource, "a", Duration.ofSeconds(30)));
            TestDatabase.exec(db.raw, "CREATE TABLE " + backup + " AS SELECT * FROM " + db.lease);
            for (int i = 0; i < 2; i++) {
                Lease next = issuer.acquire(resource, "b", Duration.ofSeconds(30));
                db.write(resource, next.token(), "b");
                issuer.release(next);
            }
        }
        try {
            TestDatabase.exec(db.raw, "DELETE FROM " + db.lease, "INSERT INTO " + db.lease + " SELECT * FROM " + backup);
            Result status = cli(with(db.cliDb(), "status"));
            assertEquals(0, status.code, status.err);
            assertTrue(status.out.contains("warning: " + resource + ": issued mark 1 is below the high-water mark 3"),
                    status.out);
            Result reconcile = cli(with(db.cliDb(), "reconcile"));
            assertTrue(reconcile.out.contains("repaired " + resource + ": issued mark 1 -> 3"), reconcile.out);
            assertFalse(cli(with(db.cliDb(), "status")).out.contains("warning"));
            Result acquire = cli(with(db.cliDb(), "acquire", "--resource", resource, "--holder", "c", "--ttl", "5s"));
            assertEquals("4", acquire.out.trim(), acquire.err);
        } finally {
            TestDatabase.exec(db.raw, "DROP TABLE " + backup);
        }
    }

    @Test
    void badArgumentsGetOneLineAndExitCode64_C7() {
        for (String[] args : List.of(new String[] {"exec", "--resource", "r", "--ttl", "soon", "--", "true"},
                new String[] {"acquire", "--resource", "r", "--holder", "h"},
                new String[] {"status"},
                new String[] {"exec", "--resource", "r", "--ttl", "1s", "--renew-every", "2s", "--url", db.raw,
                        "--", "true"})) {
            Result result = cli(List.of(args));
            assertEquals(64, result.code, Arrays.toString(args) + " -> " + result.err);
            assertEquals(1, result.err.strip().lines().count(), result.err);
            assertTrue(result.err.startsWith("fencing: "), result.err);
        }
    }

    // ---- helpers --------------------------------------------------------------------------------------------

    /**
     * The arguments of {@code fencing exec} on this fixture's database and resource, then {@code rest} (strings,
     * or string arrays such as a {@link #job}).
     */
    private List<String> exec(Object... rest) {
        List<String> args = new ArrayList<>(List.of("exec"));
        args.addAll(List.of("--url", db.fenced(), "--resource", resource, "--holder", "test"));
        for (Object part : rest) {
            if (part instanceof String[]) {
                args.addAll(List.of((String[]) part));
            } else {
                args.add((String) part);
            }
        }
        return args;
    }

    /**
     * A job that ignores SIGTERM and double-forks a writer (so the writer is no longer its descendant) that ignores
     * it too and appends a line to {@code writer.log} every 50 ms; both write their PIDs to files.
     */
    private String[] stubbornJob() {
        String writer = "echo $$ > '" + dir.resolve("writer.pid") + "'; trap '' TERM; while :; do echo w >> '"
                + dir.resolve("writer.log") + "'; sleep 0.05; done";
        return new String[] {"sh", "-c", "trap '' TERM; echo $$ > '" + dir.resolve("job.pid") + "'; ( sh -c \"$0\" & );"
                + " while :; do sleep 0.05; done", writer};
    }

    /** The stubborn job's and its writer's PIDs, once the writer writes. */
    private long[] awaitStubbornJob() throws Exception {
        await(() -> lines(dir.resolve("writer.log")).size() >= 3, "the double-forked writer writes");
        return new long[] {Long.parseLong(Files.readString(dir.resolve("job.pid")).trim()),
                Long.parseLong(Files.readString(dir.resolve("writer.pid")).trim())};
    }

    private void assertWriterStopped() throws InterruptedException {
        int written = lines(dir.resolve("writer.log")).size();
        Thread.sleep(300);
        assertEquals(written, lines(dir.resolve("writer.log")).size(), "nothing writes any more");
    }

    /** Whether {@code pid} runs (a zombie does not: nothing reaps orphans on some machines). */
    private static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException gone) {
            return false;
        }
    }

    private static void kill(long[] pids) throws IOException, InterruptedException {
        for (long pid : pids) {
            if (running(pid)) {
                signal("KILL", pid);
            }
        }
    }

    private static List<String> with(List<String> db, String... command) {
        List<String> args = new ArrayList<>(List.of(command));
        args.addAll(db);
        return args;
    }

    /** The job as a command line for exec (its last argument). */
    private String[] job(Path log, int count) {
        return javaCommand(FencedJob.class.getName(), db.fenced(), db.data, "50", Integer.toString(count),
                log.toString()).toArray(new String[0]);
    }

    static List<String> javaCommand(String mainClass, String... args) {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classPath, mainClass));
        command.addAll(List.of(args));
        return command;
    }

    /** Whether this machine lets us run a process as PID 1 of a new PID namespace; asked once, noticed if not. */
    private static final boolean PID_NAMESPACES = pidNamespaces();

    private static boolean pidNamespaces() {
        try {
            Process p = new ProcessBuilder("unshare", "-p", "-f", "--mount-proc", "true").redirectErrorStream(true)
                    .start();
            boolean allowed = p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
            if (!allowed) {
                System.err.println("NOTICE: exec tests in separate PID namespaces skipped: unshare -p -f --mount-proc"
                        + " failed here (" + new String(p.getInputStream().readAllBytes()).strip() + ")");
            }
            return allowed;
        } catch (IOException | InterruptedException e) {
            System.err.println("NOTICE: exec tests in separate PID namespaces skipped: no unshare (" + e + ")");
            return false;
        }
    }

    /** Starts {@code fencing} as PID 1 of its own PID namespace, as in a container. */
    private static Process startInPidNamespace(Path err, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of("unshare", "-p", "-f", "--mount-proc"));
        command.addAll(javaCommand(FencingCli.class.getName(), args.toArray(new String[0])));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(err.toFile()).start();
    }

    /** Starts {@code fencing} as its own process. */
    private static Process start(Path err, List<String> args) throws IOException {
        List<String> command = javaCommand(FencingCli.class.getName(), args.toArray(new String[0]));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(err.toFile()).start();
    }

    private record Result(int code, String out, String err) {
    }

    /** Runs {@code fencing} in this JVM (its commands' children are still real processes). */
    private static Result cli(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = FencingCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(new String[0]));
        return new Result(code, out.toString(), err.toString());
    }

    private String holderOf(String name) {
        LeaseStatus status = statusOf(name);
        return status == null ? null : status.holder();
    }

    /** The lease of {@code name} as the database has it (liveness by the database's clock), or {@code null}. */
    private LeaseStatus statusOf(String name) {
        try (TokenIssuer issuer = db.issuer()) {
            return issuer.status().stream().filter(s -> s.resource().equals(name)).findFirst().orElse(null);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> lines(Path log) {
        try {
            return Files.exists(log) ? Files.readAllLines(log) : List.of();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int count(Path log, String prefix) {
        return (int) lines(log).stream().filter(line -> line.startsWith(prefix)).count();
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor(10, TimeUnit.SECONDS);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting: " + what);
            }
            Thread.sleep(20);
        }
    }
}
