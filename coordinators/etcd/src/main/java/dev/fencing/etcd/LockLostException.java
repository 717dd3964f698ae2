package dev.fencing.etcd;

/**
 * The caller does not hold the etcd lock it asked a token for (its lease expired or was revoked, or the lock was
 * released, so the lock key is gone, or the key is attached to another lease): no token is handed out.
 */
public class LockLostException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public LockLostException(String message) {
        super(message);
    }
}
