package dev.fencing.jdbc;

import dev.fencing.jdbc.audit.Refusals;
/**
 * What a refusal does ({@code fencing.mode}): the one mode enum of the driver, its data source and the JUnit
 * extension.
 */
public enum FencingMode {
    /** Refusals are thrown, as in production (the default). */
    ENFORCE,
    /**
     * Nothing is refused but writes to the fence's own tables: what enforce mode would refuse runs unguarded and is
     * reported.
     */
    AUDIT
}
