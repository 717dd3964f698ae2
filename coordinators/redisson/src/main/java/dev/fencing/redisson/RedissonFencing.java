package dev.fencing.redisson;

import dev.fencing.jdbc.FencedConnection;
import org.redisson.api.RFencedLock;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Fencing tokens for holders of Redisson's {@link RFencedLock}: the token {@code lockAndGetToken} returns, an
 * {@code INCR} of a counter key next to the lock (strictly greater at every acquisition, re-entrant ones included).
 *
 * <pre>{@code
 * try (RedissonLease lease = RedissonFencing.lock(redisson.getFencedLock("orders"), "orders", fencedDataSource)) {
 *     ... // writes through jdbc:fencing: on this thread carry the lock's token
 * }
 * }</pre>
 *
 * The counter lives only in Redis: a restart without persistence, a flush, a failover to a replica that missed the
 * last increments, or a deleted key starts it again at 1. The database then holds a greater mark, and the lock hands
 * out tokens that are already used. Below the mark they are refused ({@code ZF002}); the token equal to the mark
 * would be accepted as the same epoch as the holder that wrote it. The variants taking a {@link DataSource} check at
 * acquisition that the token is above the resource's high-water mark and throw {@link CounterWentBackException}
 * otherwise (after unlocking), so a lost counter is never used, even at the mark; {@link #rebase} repairs it.
 */
public final class RedissonFencing {
    /** Redisson's prefix of the token counter key of an {@code RFencedLock} (RedissonFencedLock 4.x). */
    static final String COUNTER_PREFIX = "redisson_lock_token";
    private static final String RAISE = "local current = tonumber(redis.call('get', KEYS[1]) or '0'); "
            + "local floor = tonumber(ARGV[1]); "
            + "if current < floor then redis.call('set', KEYS[1], ARGV[1]); return floor; end; return current;";

    private RedissonFencing() {
    }

    /** {@code lock.lockAndGetToken()} (the watchdog keeps it), with the token in force on this thread. */
    public static RedissonLease lock(RFencedLock lock, String resource) {
        return lease(lock, resource, lock.lockAndGetToken());
    }

    /**
     * Waits for {@code lock} and holds it at most {@code leaseTime}, with the token in force on this thread. Calls
     * {@code tryLockAndGetToken(-1, leaseTime, unit)}: Redisson 4.7.0's {@code lockAndGetToken(leaseTime, unit)}
     * ignores its lease time (it calls {@code lockAndGetTokenAsync()} without it, so the watchdog keeps the lock
     * for as long as the client lives).
     */
    public static RedissonLease lock(RFencedLock lock, String resource, long leaseTime, TimeUnit unit) {
        return lease(lock, resource, lock.tryLockAndGetToken(-1, leaseTime, unit));
    }

    /**
     * {@code lock.tryLockAndGetToken(waitTime, leaseTime, unit)} ({@code leaseTime} -1: the watchdog keeps it);
     * {@code null} when the lock was not acquired within {@code waitTime}.
     */
    public static RedissonLease tryLock(RFencedLock lock, String resource, long waitTime, long leaseTime,
                                        TimeUnit unit) {
        Long token = lock.tryLockAndGetToken(waitTime, leaseTime, unit);
        return token == null ? null : lease(lock, resource, token);
    }

    /**
     * {@link #lock(RFencedLock, String)}, then checks the token against the resource's high-water mark in
     * {@code database} (a {@code jdbc:fencing:} data source or pool): a token not above it means the Redis counter
     * went back; the lock is then released and {@link CounterWentBackException} thrown.
     */
    public static RedissonLease lock(RFencedLock lock, String resource, DataSource database) throws SQLException {
        return checked(lock(lock, resource), database);
    }

    /** {@link #lock(RFencedLock, String, long, TimeUnit)} with the check of {@link #lock(RFencedLock, String, DataSource)}. */
    public static RedissonLease lock(RFencedLock lock, String resource, long leaseTime, TimeUnit unit,
                                     DataSource database) throws SQLException {
        return checked(lock(lock, resource, leaseTime, unit), database);
    }

    /**
     * Raises the lock's token counter to at least {@code floor} (never lowers it), atomically in Redis; returns
     * the counter's value after. After a {@link CounterWentBackException}, pass the database's high-water mark
     * plus a margin larger than the number of acquisitions that may have got a token from the lost counter
     * without writing yet (a holder paused right after acquiring): those tokens are known to nobody but the lost
     * counter, and a rebase to the mark alone could hand one of them out again.
     */
    public static long rebase(RedissonClient redisson, RFencedLock lock, long floor) {
        if (floor <= 0) {
            throw new IllegalArgumentException("fencing: a rebase floor must be positive, was " + floor);
        }
        Long after = redisson.getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE, RAISE,
                RScript.ReturnType.LONG, List.of(counterKey(lock)), Long.toString(floor));
        return after;
    }

    /**
     * The Redis key of {@code lock}'s token counter, named as Redisson 4 names it: {@code redisson_lock_token:{name}}
     * ({@code redisson_lock_token:name} when the name holds a {@code {hash tag}}), in the lock's hash slot.
     */
    public static String counterKey(RFencedLock lock) {
        String name = lock.getName();
        return name.contains("{") ? COUNTER_PREFIX + ":" + name : COUNTER_PREFIX + ":{" + name + "}";
    }

    private static RedissonLease lease(RFencedLock lock, String resource, Long token) {
        if (token == null || token <= 0) {
            if (lock.isHeldByCurrentThread()) {
                lock.unlock();
            }
            throw new IllegalStateException("fencing: Redisson lock " + lock.getName() + " returned token " + token);
        }
        try {
            return new RedissonLease(lock, resource, token);
        } catch (RuntimeException badResource) {
            lock.unlock();
            throw badResource;
        }
    }

    private static RedissonLease checked(RedissonLease lease, DataSource database) throws SQLException {
        long mark;
        try (Connection c = database.getConnection()) {
            mark = c.unwrap(FencedConnection.class).readHighWaterMark(lease.resource());
        } catch (SQLException | RuntimeException e) {
            lease.close();
            throw e;
        }
        if (lease.token() <= mark) {
            lease.close();
            throw new CounterWentBackException(counterKey(lease.lock()), lease.resource(), lease.token(), mark);
        }
        return lease;
    }
}
