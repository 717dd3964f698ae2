package dev.fencing.jdbc;

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

    /** The highest high-water mark this JVM has seen for the resource: its guarded tokens and refusals' marks; 0 before any. */
    long getCurrentMark();
}
