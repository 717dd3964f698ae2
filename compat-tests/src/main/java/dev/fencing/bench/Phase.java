package dev.fencing.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * One measured pass: {@code threads} threads run one workload against one pool for a fixed time, each timing its
 * own operations. Any failure of an operation stops the pass and is rethrown: a failed write is not a fast write.
 */
final class Phase {
    /** What a pass measured. */
    record Result(long operations, long elapsedNanos, Latencies latencies, long allocatedBytes) {
        double opsPerSecond() {
            return operations * 1e9 / elapsedNanos;
        }
    }

    /** The work of one thread in a pass, given its own random source. */
    interface Operation {
        void run(SplittableRandom random) throws Exception;
    }

    private Phase() {
    }

    static Result run(DataSource pool, Workload workload, BenchTables tables, int threads, double seconds,
                      long seed) throws Exception {
        return run(threads, seconds, seed, random -> workload.run(pool, tables, random));
    }

    static Result run(int threads, double seconds, long seed, Operation operation) throws Exception {
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong allocated = new AtomicLong();
        long[] deadline = new long[1];
        List<Latencies> perThread = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Latencies latencies = new Latencies();
            perThread.add(latencies);
            SplittableRandom random = new SplittableRandom(seed * 1_000 + i);
            Thread worker = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                    long end = deadline[0];
                    long bytesBefore = allocatedByThisThread();
                    long now = System.nanoTime();
                    while (now < end && failure.get() == null) {
                        operation.run(random);
                        long after = System.nanoTime();
                        latencies.add(after - now);
                        now = after;
                    }
                    allocated.addAndGet(allocatedByThisThread() - bytesBefore - latencies.growthBytes());
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-" + i);
            workers.add(worker);
            worker.start();
        }
        ready.await();
        long start = System.nanoTime();
        deadline[0] = start + (long) (seconds * 1e9);
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsed = System.nanoTime() - start;
        if (failure.get() != null) {
            throw new IllegalStateException("an operation failed: " + failure.get(), failure.get());
        }
        Latencies all = new Latencies();
        for (Latencies latencies : perThread) {
            all.addAll(latencies);
        }
        return new Result(all.size(), elapsed, all, allocated.get());
    }

    /** Bytes this thread has allocated so far (HotSpot's per-thread counter); 0 where the JVM has none. */
    private static long allocatedByThisThread() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads
                && threads.isThreadAllocatedMemorySupported()) {
            return threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        }
        return 0;
    }
}
