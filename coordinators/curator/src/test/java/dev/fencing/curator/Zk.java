package dev.fencing.curator;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** ZooKeeper helpers for the tests: clients, a session expired on the server, the ensemble's leader. */
final class Zk {
    private Zk() {
    }

    /** A started client with its own session. */
    static CuratorFramework client(String connectString) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000,
                new RetryNTimes(20, 200));
        client.start();
        if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no ZooKeeper connection to " + connectString);
        }
        return client;
    }

    /**
     * Expires {@code client}'s session on the server, as a pause longer than the session timeout would: a second
     * connection joins the session and closes it, so the server deletes the session's ephemeral lock nodes now.
     * The paused owner's own client learns it only when it next talks to the server.
     */
    static void expireOnServer(CuratorFramework client, String connectString) throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        long sessionId = zk.getSessionId();
        byte[] password = zk.getSessionPasswd();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(connectString, 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, sessionId, password);
        try {
            if (!connected.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not join session 0x" + Long.toHexString(sessionId));
            }
        } finally {
            twin.close();
        }
    }

    /** The instance of {@code cluster} that is the leader now ("Mode: leader" in its {@code srvr} answer). */
    static InstanceSpec leader(TestingCluster cluster) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            for (InstanceSpec spec : cluster.getInstances()) {
                if (srvr(spec.getPort()).contains("Mode: leader")) {
                    return spec;
                }
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no leader in " + cluster.getConnectString());
    }

    private static String srvr(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            StringBuilder answer = new StringBuilder();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.US_ASCII));
            for (String line; (line = in.readLine()) != null; ) {
                answer.append(line).append('\n');
            }
            return answer.toString();
        } catch (Exception e) {
            return "";
        }
    }
}
