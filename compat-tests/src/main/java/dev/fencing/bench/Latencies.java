package dev.fencing.bench;

import java.util.Arrays;

/** Latencies of one thread's operations in nanoseconds, kept whole (no binning) and merged for percentiles. */
final class Latencies {
    private long[] values = new long[4096];
    private int size;
    private long growthBytes;

    void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
            growthBytes += 16L + 8L * values.length;
        }
        values[size++] = nanos;
    }

    /** Bytes allocated by growing the array: the harness's own allocation, not the measured operations'. */
    long growthBytes() {
        return growthBytes;
    }

    int size() {
        return size;
    }

    void addAll(Latencies other) {
        for (int i = 0; i < other.size; i++) {
            add(other.values[i]);
        }
    }

    /** The {@code p}-th percentile (0 < p <= 100) in microseconds, nearest rank; 0 when empty. */
    double percentileMicros(double p) {
        if (size == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100 * size);
        return sorted[Math.max(0, Math.min(size - 1, rank - 1))] / 1_000.0;
    }
}
