package dev.fencing.bench;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.FencingSqlState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * What an epoch change costs while writers are busy. Writers update single rows in autocommit through the fenced
 * pool, each with the token published at the moment it starts. Repeatedly, a new owner writes once with the next
 * token (its first write advances the mark and waits for in-flight writes of the old epoch: the advance latency),
 * then publishes the token; the writers carry on as the new owner. Time to full speed is how long after that
 * first write the writers' throughput, in 50 ms windows, is back at the level of a normal steady window.
 */
final class EpochChange {
    private static final long BUCKET_NANOS = 10_000_000L;
    private static final int WINDOW_BUCKETS = 5;

    /** Advance latencies and times to full speed in microseconds, one per change; refused old-epoch writes. */
    record Result(int threads, double[] advanceMicros, double[] fullSpeedMicros, long refusedOldEpochWrites,
                  long writes) {
        static double median(double[] values) {
            double[] sorted = values.clone();
            Arrays.sort(sorted);
            return sorted.length == 0 ? 0 : sorted[(sorted.length - 1) / 2];
        }

        static double max(double[] values) {
            return Arrays.stream(values).max().orElse(0);
        }
    }

    private EpochChange() {
    }

    static Result run(DataSource fenced, BenchTables tables, String resource, int threads, int changes,
                      double steadySeconds) throws Exception {
        AtomicLong published = new AtomicLong(1);
        long steady = (long) (steadySeconds * 1e9);
        long total = steady * (changes + 2);
        int bucketCount = (int) (total / BUCKET_NANOS) + 1000;
        long start = System.nanoTime();
        long end = start + total;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong refused = new AtomicLong();
        AtomicLong writes = new AtomicLong();
        List<int[]> buckets = new ArrayList<>();
        List<Thread> writers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int[] mine = new int[bucketCount];
            buckets.add(mine);
            SplittableRandom random = new SplittableRandom(42 + i);
            Thread writer = new Thread(() -> {
                try {
                    long now = System.nanoTime();
                    while (now < end && failure.get() == null) {
                        if (write(fenced, tables, resource, published.get(), random)) {
                            now = System.nanoTime();
                            mine[(int) ((now - start) / BUCKET_NANOS)]++;
                            writes.incrementAndGet();
                        } else {
                            refused.incrementAndGet();
                            now = System.nanoTime();
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "epoch-writer-" + i);
            writers.add(writer);
            writer.start();
        }
        double[] advance = new double[changes];
        long[] advanceStart = new long[changes];
        long[] advanceEnd = new long[changes];
        SplittableRandom random = new SplittableRandom(7);
        try {
            for (int k = 0; k < changes && failure.get() == null; k++) {
                Thread.sleep(steady / 1_000_000);
                long next = published.get() + 1;
                advanceStart[k] = System.nanoTime();
                if (!write(fenced, tables, resource, next, random)) {
                    throw new IllegalStateException("the new owner's first write with token " + next + " was refused");
                }
                advanceEnd[k] = System.nanoTime();
                published.set(next);
                advance[k] = (advanceEnd[k] - advanceStart[k]) / 1_000.0;
            }
        } finally {
            for (Thread writer : writers) {
                writer.join();
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("an epoch-change writer failed: " + failure.get(), failure.get());
        }
        int[] all = new int[bucketCount];
        for (int[] mine : buckets) {
            for (int b = 0; b < bucketCount; b++) {
                all[b] += mine[b];
            }
        }
        double[] fullSpeed = new double[changes];
        for (int k = 0; k < changes; k++) {
            fullSpeed[k] = fullSpeedMicros(all, start, advanceStart[k], advanceEnd[k], steady);
        }
        return new Result(threads, advance, fullSpeed, refused.get(), writes.get());
    }

    /**
     * From the end of the advancing write until the first 50 ms window with at least as many writes as the slowest
     * tenth of the steady windows before the change (so ordinary noise counts as full speed, a stall does not).
     */
    private static double fullSpeedMicros(int[] buckets, long start, long advanceStart, long advanceEnd, long steady) {
        int firstSteady = (int) ((advanceStart - steady / 2 - start) / BUCKET_NANOS);
        // An advance can start after the last recorded bucket when a lock wait outlasts the measured span.
        int lastSteady = Math.min((int) ((advanceStart - start) / BUCKET_NANOS) - 1, buckets.length - 1);
        List<Integer> windows = new ArrayList<>();
        for (int b = Math.max(0, firstSteady); b + WINDOW_BUCKETS - 1 <= lastSteady; b++) {
            windows.add(sum(buckets, b));
        }
        windows.sort(null);
        int normal = windows.isEmpty() ? 0 : windows.get(windows.size() / 10);
        int after = (int) ((advanceEnd - start) / BUCKET_NANOS);
        for (int b = after; b + WINDOW_BUCKETS <= buckets.length; b++) {
            if (sum(buckets, b) >= normal) {
                return Math.max(0, (start + (long) b * BUCKET_NANOS - advanceEnd) / 1_000.0);
            }
        }
        return Double.NaN;
    }

    private static int sum(int[] buckets, int from) {
        int sum = 0;
        for (int b = from; b < from + WINDOW_BUCKETS; b++) {
            sum += buckets[b];
        }
        return sum;
    }

    /** One fenced single-row update with {@code token}; false when it was refused as stale (an old-epoch write). */
    private static boolean write(DataSource fenced, BenchTables tables, String resource, long token,
                                 SplittableRandom random) throws SQLException {
        try (Fencing.Scope scope = Fencing.scope(resource, token);
             Connection c = fenced.getConnection();
             PreparedStatement update = c.prepareStatement("UPDATE " + tables.accounts
                     + " SET abalance = abalance + 1 WHERE aid = ?")) {
            update.setInt(1, random.nextInt(tables.rows) + 1);
            if (update.executeUpdate() != 1) {
                throw new IllegalStateException("epoch change: expected one row updated");
            }
            return true;
        } catch (FencingRefusedException e) {
            if (FencingSqlState.STALE_TOKEN.equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }
}
