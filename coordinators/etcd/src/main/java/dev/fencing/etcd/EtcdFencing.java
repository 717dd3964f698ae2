package dev.fencing.etcd;

import dev.fencing.jdbc.Fencing;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.lock.LockResponse;

import java.util.List;
import java.util.concurrent.ExecutionException;

/**
 * Fencing tokens for holders of etcd locks taken with jetcd ({@code client.getLockClient().lock(name, leaseId)}): the
 * {@code create_revision} of the holder's own lock key. etcd's lock creates one key per acquisition
 * ({@code <name>/<lease id>}, attached to the holder's lease) and grants the lock to the key with the lowest
 * {@code create_revision} once every lower one is gone, so each new holder's key was created after every earlier
 * holder's: its {@code create_revision} is strictly greater. Revisions are one counter for the whole cluster, kept in
 * its write-ahead log and snapshots: they only grow, across leader changes, restarts of members and compaction.
 *
 * <pre>{@code
 * LockResponse locked = client.getLockClient().lock(name, leaseId).get();
 * try (Fencing.Scope scope = EtcdFencing.scope(client, locked, leaseId, "orders")) {
 *     ... // writes through jdbc:fencing: on this thread carry the lock key's create_revision
 * } finally {
 *     client.getLockClient().unlock(locked.getKey()).get();
 * }
 * }</pre>
 *
 * Not tokens: the lease id (not ordered), the key's {@code version} (1 for every lock key, each acquisition making
 * a new key). Before it reads the {@code create_revision}, every method checks that the lock key
 * still exists and belongs to {@code leaseId}, and throws {@link LockLostException} otherwise.
 */
public final class EtcdFencing {
    private EtcdFencing() {
    }

    /**
     * The lease of the lock {@code locked} (the answer of {@code lock(name, leaseId)}): its key's
     * {@code create_revision} as the token.
     *
     * @throws LockLostException when the lock key is gone (the lease expired or was revoked, or the lock released)
     *                           or is attached to another lease
     */
    public static EtcdLease lease(Client client, LockResponse locked, long leaseId, String resource)
            throws InterruptedException, ExecutionException {
        return lease(client, locked.getKey(), leaseId, resource);
    }

    /** {@link #lease(Client, LockResponse, long, String)} for the lock key itself. */
    public static EtcdLease lease(Client client, ByteSequence lockKey, long leaseId, String resource)
            throws InterruptedException, ExecutionException {
        GetResponse response = client.getKVClient().get(lockKey).get();
        List<KeyValue> kvs = response.getKvs();
        String shown = lockKey.toString(java.nio.charset.StandardCharsets.UTF_8);
        if (kvs.isEmpty()) {
            throw new LockLostException("fencing: etcd lock key " + shown + " is gone (its lease expired or was"
                    + " revoked, or the lock was released); resource '" + resource + "'");
        }
        KeyValue kv = kvs.get(0);
        if (kv.getLease() != leaseId) {
            throw new LockLostException("fencing: etcd lock key " + shown + " belongs to lease "
                    + Long.toHexString(kv.getLease()) + ", not " + Long.toHexString(leaseId)
                    + ": the lock was lost; resource '" + resource + "'");
        }
        if (kv.getCreateRevision() <= 0) {
            throw new IllegalStateException("fencing: etcd lock key " + shown + " has create_revision "
                    + kv.getCreateRevision());
        }
        return new EtcdLease(resource, kv.getCreateRevision(), shown, leaseId, response.getHeader().getRevision());
    }

    /** Opens a thread scope ({@link Fencing#scope}) with the token of the lock {@code locked}. */
    public static Fencing.Scope scope(Client client, LockResponse locked, long leaseId, String resource)
            throws InterruptedException, ExecutionException {
        return lease(client, locked, leaseId, resource).scope();
    }
}
