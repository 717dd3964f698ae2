package dev.fencing.jdbc;

import dev.fencing.jdbc.audit.Refusals;
import java.util.Map;

/**
 * What an operator reads about one resource's fence through JMX, under {@code dev.fencing:type=Fence,resource=<name>}
 * in the platform MBeanServer: counts since this JVM's first fenced statement for the resource (see
 * docs/operations.md).
 */
public interface FenceMXBean {
    /** The resource these counts are for. */
    String getResource();

    /** Mutations that ran with the guard and a current token. */
    long getMutationsGuarded();

    /** Refusals in all, whether thrown (enforce mode) or recorded and run unguarded (audit mode). */
    long getRefusals();

    /** Refusals per SQLState ({@code ZF001} to {@code ZF006}). */
    Map<String, Long> getRefusalsBySqlState();

    /**
     * How often this JVM saw the resource's epoch advance: a guarded mutation ran at a token above the highest
     * mark this JVM had seen for the resource (the first mark it sees is the starting point, not an advance).
     */
    long getEpochAdvances();

    /**
     * How often a statement of the fence's own locked the epoch row or raised the mark before a mutation (an
     * advance, a first write in a transaction, H2 and MariaDB, statements that cannot carry the guard ahead).
     */
    long getEpochLocks();

    /**
     * The time those statements took in all, in nanoseconds: mostly waiting for the epoch lock (an advance waits
     * for the old epoch's writers to finish; writers wait for an advance). A PostgreSQL guard sent ahead of the
     * statement in the same round trip waits inside the statement and is not counted.
     */
    long getEpochLockWaitNanos();

    /**
     * Under the session fence ({@code fencing.guard=session}): server sessions registered as holders of a token (one
     * per connection and token); their writes then go to the server untouched.
     */
    long getSessionRegistrations();

    /**
     * Under the session fence: idle points at which a connection's registration failed for a transient reason
     * (serialization failure, deadlock, the epoch row held past the registration's one-second wait) even after its
     * retries, so the statement guard served its writes instead; the connection tries again at a later idle point.
     * Rising while {@link #getSessionRegistrations()} does not means the fast path is not serving.
     */
    long getSessionFallbacks();

    /** The highest high-water mark this JVM has seen for the resource: its guarded tokens and refusals' marks; 0 before any. */
    long getCurrentMark();
}
