package dev.fencing.curator;

import dev.fencing.jdbc.HeldTokens;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The token of a {@link LeaderLatch}'s leadership, held for the whole process while the latch leads
 * ({@link CuratorFencing#holdWhileLeader}). Closing it removes its listener and drops the token.
 */
public final class LeadershipHold implements LeaderLatchListener, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(LeadershipHold.class.getName());
    private final CuratorFramework client;
    private final LeaderLatch latch;
    private final String resource;
    private HeldTokens.Hold hold;
    private CuratorLease lease;
    private boolean closed;

    private LeadershipHold(CuratorFramework client, LeaderLatch latch, String resource) {
        this.client = client;
        this.latch = latch;
        this.resource = resource;
    }

    static LeadershipHold start(CuratorFramework client, LeaderLatch latch, String resource) {
        LeadershipHold hold = new LeadershipHold(client, latch, resource);
        latch.addListener(hold);
        if (latch.hasLeadership()) {
            hold.isLeader();
        }
        return hold;
    }

    /** The lease held now, or {@code null} while the latch does not lead. */
    public synchronized CuratorLease lease() {
        return lease;
    }

    @Override
    public synchronized void isLeader() {
        if (closed) {
            return;
        }
        drop();
        try {
            lease = CuratorFencing.lease(client, latch, resource);
            hold = lease.holdForProcess();
        } catch (Exception e) {
            // No token is held: writes are refused (ZF001) rather than made with a token that may not be ours.
            LOG.log(Level.WARNING, "fencing: could not read the leader token of latch '" + latch.getId()
                    + "' for resource '" + resource + "'", e);
        }
    }

    @Override
    public synchronized void notLeader() {
        drop();
    }

    @Override
    public synchronized void close() {
        closed = true;
        latch.removeListener(this);
        drop();
    }

    private void drop() {
        if (hold != null) {
            hold.close();
        }
        hold = null;
        lease = null;
    }
}
