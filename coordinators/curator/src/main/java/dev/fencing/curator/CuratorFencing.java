package dev.fencing.curator;

import dev.fencing.jdbc.Fencing;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.data.Stat;

import java.util.Iterator;

/**
 * Fencing tokens for holders of Curator's {@link InterProcessMutex} and {@link LeaderLatch}: the {@code czxid} of
 * the holder's own lock node. ZooKeeper gives every transaction a zxid that only grows, with the leader epoch in
 * its high 32 bits, so it keeps growing across leader elections and restarts of the ensemble; lock nodes are
 * served in creation order, so each new holder's node has a greater {@code czxid} than every earlier holder's.
 * The node's sequence suffix is not a token: it is a 32-bit counter per parent node, which wraps, and starts at 0
 * again when Curator's container parent is deleted.
 *
 * <pre>{@code
 * mutex.acquire();
 * try (Fencing.Scope scope = CuratorFencing.scope(client, mutex, "orders")) {
 *     ... // writes through jdbc:fencing: on this thread carry the lock node's czxid
 * } finally {
 *     mutex.release();
 * }
 * }</pre>
 *
 * Every method checks that the node it reads belongs to the caller's current ZooKeeper session and that the
 * caller holds the lock, and throws {@link LockLostException} otherwise: a token is never read from another
 * holder's node.
 */
public final class CuratorFencing {
    private CuratorFencing() {
    }

    /**
     * The lease of the current thread's hold on {@code mutex}: its lock node's {@code czxid} as the token.
     *
     * @param client the client {@code mutex} was made with
     * @throws LockLostException when this thread does not own {@code mutex}, or its lock node is gone or belongs to
     *                           another session
     */
    public static CuratorLease lease(CuratorFramework client, InterProcessMutex mutex, String resource)
            throws Exception {
        if (!mutex.isOwnedByCurrentThread()) {
            throw new LockLostException("fencing: this thread does not hold the Curator lock it asks a token for"
                    + " (resource '" + resource + "')");
        }
        // The holder of an InterProcessMutex is the participant with the lowest sequence number: this thread's node.
        Iterator<String> nodes = mutex.getParticipantNodes().iterator();
        if (!nodes.hasNext()) {
            throw new LockLostException("fencing: the Curator lock has no lock node any more (session expired?);"
                    + " resource '" + resource + "'");
        }
        return ownNode(client, nodes.next(), resource);
    }

    /** Opens a thread scope ({@link Fencing#scope}) with the token of this thread's hold on {@code mutex}. */
    public static Fencing.Scope scope(CuratorFramework client, InterProcessMutex mutex, String resource)
            throws Exception {
        return lease(client, mutex, resource).scope();
    }

    /**
     * The lease of {@code latch}'s leadership: its own latch node's {@code czxid} as the token.
     *
     * @throws LockLostException when {@code latch} is not the leader, or its node is gone or belongs to another
     *                           session
     */
    public static CuratorLease lease(CuratorFramework client, LeaderLatch latch, String resource) throws Exception {
        String path = latch.getOurPath();
        if (!latch.hasLeadership() || path == null) {
            throw new LockLostException("fencing: the leader latch '" + latch.getId() + "' is not the leader"
                    + " (resource '" + resource + "')");
        }
        CuratorLease lease = ownNode(client, path, resource);
        if (!latch.hasLeadership() || !path.equals(latch.getOurPath())) {
            throw new LockLostException("fencing: the leader latch '" + latch.getId() + "' lost leadership while"
                    + " its token was read (resource '" + resource + "')");
        }
        return lease;
    }

    /** Opens a thread scope ({@link Fencing#scope}) with the token of {@code latch}'s leadership. */
    public static Fencing.Scope scope(CuratorFramework client, LeaderLatch latch, String resource) throws Exception {
        return lease(client, latch, resource).scope();
    }

    /**
     * Keeps the token of {@code latch}'s leadership held for the whole process ({@link dev.fencing.jdbc.HeldTokens})
     * while {@code latch} is the leader: taken when it becomes leader, dropped when it stops being leader. Writers
     * on any thread whose connections name {@code fencing.token.source=dev.fencing.jdbc.HeldTokens} write with it.
     * Call before or after {@code latch.start()}; close the result to stop.
     */
    public static LeadershipHold holdWhileLeader(CuratorFramework client, LeaderLatch latch, String resource) {
        return LeadershipHold.start(client, latch, resource);
    }

    /** Reads {@code path}'s czxid, after checking that the node is an ephemeral node of this client's session. */
    static CuratorLease ownNode(CuratorFramework client, String path, String resource) throws Exception {
        long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        Stat stat = client.checkExists().forPath(path);
        if (stat == null) {
            throw new LockLostException("fencing: lock node " + path + " is gone (session expired or lock released);"
                    + " resource '" + resource + "'");
        }
        if (stat.getEphemeralOwner() != session) {
            throw new LockLostException("fencing: lock node " + path + " belongs to ZooKeeper session 0x"
                    + Long.toHexString(stat.getEphemeralOwner()) + ", not this client's 0x" + Long.toHexString(session)
                    + ": the lock was lost; resource '" + resource + "'");
        }
        if (stat.getCzxid() <= 0) {
            throw new IllegalStateException("fencing: lock node " + path + " has czxid " + stat.getCzxid());
        }
        return new CuratorLease(resource, stat.getCzxid(), path);
    }
}
