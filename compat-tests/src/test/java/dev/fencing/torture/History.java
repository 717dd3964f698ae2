package dev.fencing.torture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything a torture run recorded from the clients' side: operations, lease acquisitions, injected faults and
 * samples of the high-water mark. Safe for the run's threads to append to; read once they have all finished.
 */
final class History {
    /** A lease the issuer granted to an owner. */
    record Acquisition(int owner, long token, boolean newEpoch, boolean force, boolean revoke, long atMillis) {
        String describe() {
            return "+" + atMillis + "ms owner " + owner + (newEpoch ? " acquired token " : " extended its lease, token ")
                    + token + (force ? " (forced takeover)" : "") + (revoke ? " (immediate revocation)" : "");
        }
    }

    /** The high-water mark read by the monitor at one moment. */
    record Sample(long atMillis, long mark) {
    }

    final long seed;
    final long origin = System.nanoTime();
    private final AtomicLong opIds = new AtomicLong();
    private final Queue<Op> ops = new ConcurrentLinkedQueue<>();
    private final Queue<Acquisition> acquisitions = new ConcurrentLinkedQueue<>();
    private final Queue<String> faultLog = new ConcurrentLinkedQueue<>();
    private final Map<String, AtomicLong> faults = new TreeMap<>();
    private final Queue<Sample> samples = new ConcurrentLinkedQueue<>();

    History(long seed) {
        this.seed = seed;
    }

    long millis() {
        return (System.nanoTime() - origin) / 1_000_000;
    }

    Op newOp(int owner, long token, Op.Shape shape, int[] dataIds, int items, int slot, String how) {
        Op op = new Op(opIds.incrementAndGet(), owner, token, shape, dataIds, items, slot, how, origin);
        ops.add(op);
        return op;
    }

    void acquired(int owner, long token, boolean newEpoch, boolean force, boolean revoke) {
        acquisitions.add(new Acquisition(owner, token, newEpoch, force, revoke, millis()));
    }

    void fault(String kind, String detail) {
        synchronized (faults) {
            faults.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
        }
        faultLog.add("+" + millis() + "ms " + kind + ": " + detail);
    }

    void sample(long mark) {
        samples.add(new Sample(millis(), mark));
    }

    List<Op> ops() {
        return new ArrayList<>(ops);
    }

    List<Acquisition> acquisitions() {
        return new ArrayList<>(acquisitions);
    }

    List<Sample> samples() {
        return new ArrayList<>(samples);
    }

    List<String> faultLog() {
        return new ArrayList<>(faultLog);
    }

    Map<String, Long> faultCounts() {
        Map<String, Long> counts = new TreeMap<>();
        synchronized (faults) {
            faults.forEach((kind, n) -> counts.put(kind, n.get()));
        }
        return counts;
    }
}
