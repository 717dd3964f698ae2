package dev.fencing.curator;

/**
 * The caller does not hold the Curator lock or leadership it asked a token for (never acquired, released, or its
 * ZooKeeper session expired and the lock node is gone): no token is handed out.
 */
public class LockLostException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public LockLostException(String message) {
        super(message);
    }
}
