package dev.fencing.torture;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * H2 for torture runs: either a file database served by an H2 server in a child JVM that the test kills
 * ({@code SIGKILL}) and starts again on the same files, or an in-memory database in this JVM.
 *
 * <p>The file database runs with {@code WRITE_DELAY=0}. With H2's default (500 ms) a killed process loses commits
 * it had already acknowledged, high-water mark advances included (measured: see docs/testing.md, "Torture testing").
 */
final class H2Target extends Target {
    private final Path dir;
    private final int port;
    private final String url;
    private Process server;

    private H2Target(Path dir, int port, String url) {
        this.dir = dir;
        this.port = port;
        this.url = url;
    }

    /** A file database in a fresh directory, served by a child JVM. */
    static H2Target fileServer() throws Exception {
        Path dir = Files.createTempDirectory("fencing-torture-h2");
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        H2Target target = new H2Target(dir, port, "jdbc:h2:tcp://127.0.0.1:" + port + "/torture;WRITE_DELAY=0;"
                + "LOCK_TIMEOUT=10000");
        target.startServer();
        return target;
    }

    /** An in-memory database in this JVM: nothing to kill. */
    static H2Target inMemory() {
        return new H2Target(null, -1, "jdbc:h2:mem:" + Target.unique("torture") + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
    }

    @Override
    String name() {
        return dir == null ? "h2-memory" : "h2-file-server";
    }

    @Override
    boolean postgres() {
        return false;
    }

    @Override
    String rawUrl() {
        return url;
    }

    @Override
    String clientUrl() {
        return url;
    }

    @Override
    boolean canRestart() {
        return dir != null;
    }

    /** Kills the server process outright and starts a new one on the same database files. */
    @Override
    String restart(Random random) throws Exception {
        if (dir == null) {
            return super.restart(random);
        }
        long down = 50 + random.nextInt(300);
        server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        Thread.sleep(down);
        startServer();
        return "H2 server process killed (SIGKILL), down " + down + "ms, started again on the same files";
    }

    private void startServer() throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        server = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", classPath, "org.h2.tools.Server", "-tcp", "-tcpPort", Integer.toString(port),
                "-ifNotExists", "-baseDir", dir.toString()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                if (!server.isAlive()) {
                    throw new IllegalStateException("the H2 server exited: " + Files.readString(dir.resolve("server.log")));
                }
                Thread.sleep(20);
            }
        }
        throw new IllegalStateException("the H2 server did not listen on port " + port + " within 30s");
    }

    @Override
    public void close() throws Exception {
        if (dir == null) {
            return;
        }
        server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        Target.deleteTree(dir);
    }
}
