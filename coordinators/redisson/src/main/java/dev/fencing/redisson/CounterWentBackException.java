package dev.fencing.redisson;

/**
 * A Redisson lock handed out a token that is not above what the database has already accepted for the resource:
 * its Redis counter went back (a Redis restart without persistence, a {@code FLUSHALL}, a failover to a replica
 * that had not received the last increments, a deleted key). The lock was released and nothing was written.
 * Rebase the counter above the mark ({@link RedissonFencing#rebase}) and acquire again.
 */
public class CounterWentBackException extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    private final String resource;
    private final long token;
    private final long highWaterMark;

    public CounterWentBackException(String counterKey, String resource, long token, long highWaterMark) {
        super("fencing: the Redisson lock's counter '" + counterKey + "' went back: it handed out token " + token
                + " but resource '" + resource + "' has already accepted token " + highWaterMark + " (Redis lost the"
                + " counter: restart without persistence, flush, failover or deleted key). The lock was released and"
                + " nothing was written; rebase the counter above the mark (RedissonFencing.rebase) and acquire again");
        this.resource = resource;
        this.token = token;
        this.highWaterMark = highWaterMark;
    }

    public String resource() {
        return resource;
    }

    public long token() {
        return token;
    }

    public long highWaterMark() {
        return highWaterMark;
    }
}
