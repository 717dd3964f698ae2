package dev.fencing.etcd;

import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real etcd server, a child process of the test on loopback ports of its own, with a data directory of its own
 * (deleted by {@link #close()}); {@link #restart()} stops it and starts it again on the same data. The binary is
 * {@code $FENCING_TEST_ETCD}, else {@code etcd} on the PATH (Debian's {@code etcd-server} package, which .ci/run
 * installs). Without one the test is skipped with a NOTICE line, except under CI=true, where that fails.
 */
final class EtcdServer implements AutoCloseable {
    private final String binary;
    private final Path dataDir;
    private final int clientPort;
    private final int peerPort;
    private final Path log;
    private Process process;

    private EtcdServer(String binary) throws IOException {
        this.binary = binary;
        this.dataDir = Files.createTempDirectory("fencing-test-etcd-");
        this.log = dataDir.resolveSibling(dataDir.getFileName() + ".log");
        this.clientPort = freePort();
        this.peerPort = freePort();
    }

    /** Starts a server, or skips the calling test (fails under CI=true) when there is no etcd binary. */
    static EtcdServer start() throws Exception {
        String binary = binary();
        if (binary == null) {
            String why = "no etcd binary (set FENCING_TEST_ETCD, or apt-get install etcd-server)";
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException("CI=true but " + why);
            }
            System.err.println("NOTICE: etcd tests skipped: " + why + ".");
            Assumptions.abort(why);
        }
        EtcdServer server = new EtcdServer(binary);
        server.launch();
        return server;
    }

    String endpoint() {
        return "http://127.0.0.1:" + clientPort;
    }

    /** Stops the server (SIGTERM, then SIGKILL) and starts it again on the same data directory and ports. */
    void restart() throws Exception {
        stop();
        launch();
    }

    private void launch() throws Exception {
        String peer = "http://127.0.0.1:" + peerPort;
        ProcessBuilder builder = new ProcessBuilder(binary, "--name", "fencing-test", "--data-dir", dataDir.toString(),
                "--listen-client-urls", endpoint(), "--advertise-client-urls", endpoint(),
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", "fencing-test=" + peer, "--initial-cluster-state", "new",
                "--log-level", "warn")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().keySet().removeIf(name -> name.startsWith("ETCD_"));
        process = builder.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("etcd exited with " + process.exitValue() + ": " + tail());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", clientPort), 200);
                return;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("etcd did not listen on " + endpoint() + " within 30 s: " + tail());
    }

    private void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws Exception {
        stop();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
        Files.deleteIfExists(log);
    }

    private static String binary() {
        String env = System.getenv("FENCING_TEST_ETCD");
        if (env != null && !env.isBlank()) {
            return env;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            File candidate = new File(dir, "etcd");
            if (candidate.canExecute()) {
                return candidate.getPath();
            }
        }
        return null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
