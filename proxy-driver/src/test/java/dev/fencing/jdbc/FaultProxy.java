package dev.fencing.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP proxy between a test's JDBC driver and a real database server, which puts network faults on the
 * connections that pass through it: each {@link Link} (one client connection and its server connection) can be
 * delayed, held (a partition that TCP survives: nothing is forwarded, nothing is lost, {@link Link#heal} delivers
 * what waited), blackholed after a request (the request reaches the server, no answer reaches the client), cut
 * after a number of bytes, or reset. Plain blocking sockets, two threads per link; loopback only.
 */
public final class FaultProxy implements AutoCloseable {
    private static final Pattern HOST_PORT = Pattern.compile("^(jdbc:[a-z]+://)([^/:?]+)(?::(\\d+))?(.*)$");

    /** Which way bytes travel through a link. */
    public enum Direction { TO_SERVER, TO_CLIENT }

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket listener;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private FaultProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::acceptLoop, "fault-proxy-accept-" + listener.getLocalPort());
        accept.setDaemon(true);
        accept.start();
    }

    /** A proxy to the server of the raw JDBC URL {@code rawUrl} ({@code jdbc:postgresql://host:port/...}). */
    public static FaultProxy to(String rawUrl) throws IOException {
        Matcher m = HOST_PORT.matcher(rawUrl);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a host:port JDBC URL: " + rawUrl);
        }
        int port = m.group(3) != null ? Integer.parseInt(m.group(3))
                : rawUrl.startsWith("jdbc:postgresql:") ? 5432 : 3306;
        return new FaultProxy(m.group(2), port);
    }

    /** {@code rawUrl} with its host and port replaced by this proxy's. */
    public String url(String rawUrl) {
        Matcher m = HOST_PORT.matcher(rawUrl);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a host:port JDBC URL: " + rawUrl);
        }
        return m.group(1) + "127.0.0.1:" + listener.getLocalPort() + m.group(4);
    }

    /** Every link opened so far, oldest first. */
    public List<Link> links() {
        return List.copyOf(links);
    }

    /** The newest link (the connection opened last). */
    public Link last() {
        if (links.isEmpty()) {
            throw new IllegalStateException("no connection went through the proxy yet");
        }
        return links.get(links.size() - 1);
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Link link : links) {
            link.reset();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                try {
                    server.connect(new InetSocketAddress(targetHost, targetPort), 5000);
                } catch (IOException unreachable) {
                    client.close();
                    continue;
                }
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                Link link = new Link(client, server);
                links.add(link);
                link.start();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("fault proxy: accept failed: " + e);
                }
            }
        }
    }

    /** One proxied connection: the client's socket, the server's, and the faults in force on them. */
    public static final class Link {
        private final Socket client;
        private final Socket server;
        private final Object gate = new Object();
        private volatile boolean holding;
        private volatile boolean resetting;
        private volatile long delayMillis;
        private volatile boolean dropReplies;
        private volatile byte[] blackholeMarker;
        private final CountDownLatch markerSent = new CountDownLatch(1);
        private volatile long[] budget = {Long.MAX_VALUE, Long.MAX_VALUE};
        private final CountDownLatch ended = new CountDownLatch(1);

        private Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        private void start() throws IOException {
            pump(client.getInputStream(), server.getOutputStream(), Direction.TO_SERVER);
            pump(server.getInputStream(), client.getOutputStream(), Direction.TO_CLIENT);
        }

        /** Each chunk in either direction waits {@code millis} before it is forwarded. */
        public void delay(long millis) {
            delayMillis = millis;
        }

        /** Stops forwarding in both directions without closing: bytes wait (a partition TCP rides out). */
        public void hold() {
            holding = true;
        }

        /** Ends a {@link #hold}: what waited is delivered, in order. */
        public void heal() {
            synchronized (gate) {
                holding = false;
                gate.notifyAll();
            }
        }

        /**
         * From the first request (a chunk sent to the server) containing {@code marker} on: the request is
         * delivered, and nothing the server sends reaches the client again (it is read and dropped, so the server
         * never blocks). The client waits for an answer that never comes.
         */
        public void blackholeAfterRequestContaining(String marker) {
            blackholeMarker = marker.getBytes(StandardCharsets.UTF_8);
        }

        /** Blackholes the server's answers from now on (see {@link #blackholeAfterRequestContaining}). */
        public void blackhole() {
            dropReplies = true;
        }

        /** Waits until the request of {@link #blackholeAfterRequestContaining} went to the server. */
        public boolean awaitBlackholed(long millis) throws InterruptedException {
            return markerSent.await(millis, TimeUnit.MILLISECONDS);
        }

        /** Forwards {@code bytes} more bytes in {@code direction}, then resets the connection. */
        public void cutAfter(Direction direction, long bytes) {
            long[] next = budget.clone();
            next[direction.ordinal()] = bytes;
            budget = next;
        }

        /**
         * Ends both connections at once: the client gets a TCP reset, the server sees its client go; what a
         * {@link #hold} kept back is never delivered.
         */
        public void reset() {
            synchronized (gate) {
                resetting = true;
                gate.notifyAll();
            }
            try {
                client.setSoLinger(true, 0);
            } catch (IOException ignored) {
                // already closed
            }
            closeQuietly(client);
            closeQuietly(server);
            ended.countDown();
        }

        /** Whether the link was reset or one side closed. */
        public boolean ended() {
            return ended.getCount() == 0;
        }

        private void pump(InputStream in, OutputStream out, Direction direction) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[16384];
                try {
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        forward(buffer, n, out, direction);
                    }
                } catch (IOException | InterruptedException ended) {
                    // the link is over
                } finally {
                    closeQuietly(client);
                    closeQuietly(server);
                    this.ended.countDown();
                }
            }, "fault-proxy-" + direction + "-" + client.getPort());
            t.setDaemon(true);
            t.start();
        }

        private void forward(byte[] buffer, int n, OutputStream out, Direction direction)
                throws IOException, InterruptedException {
            synchronized (gate) {
                while (holding && !resetting) {
                    gate.wait();
                }
            }
            if (resetting) {
                throw new IOException("reset");
            }
            long delay = delayMillis;
            if (delay > 0) {
                Thread.sleep(delay);
            }
            if (direction == Direction.TO_CLIENT && dropReplies) {
                return;
            }
            byte[] marker = blackholeMarker;
            if (direction == Direction.TO_SERVER && marker != null && contains(buffer, n, marker)) {
                dropReplies = true; // before the request goes: its answer must not get through
                blackholeMarker = null;
                out.write(buffer, 0, n);
                out.flush();
                markerSent.countDown();
                return;
            }
            long left = budget[direction.ordinal()];
            if (left < n) {
                out.write(buffer, 0, (int) left);
                out.flush();
                reset();
                throw new IOException("cut");
            }
            if (left != Long.MAX_VALUE) {
                long[] next = budget.clone();
                next[direction.ordinal()] = left - n;
                budget = next;
            }
            out.write(buffer, 0, n);
            out.flush();
        }

        private static boolean contains(byte[] buffer, int n, byte[] marker) {
            outer:
            for (int i = 0; i + marker.length <= n; i++) {
                for (int j = 0; j < marker.length; j++) {
                    if (buffer[i + j] != marker[j]) {
                        continue outer;
                    }
                }
                return true;
            }
            return false;
        }

        private static void closeQuietly(Socket socket) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }
}
