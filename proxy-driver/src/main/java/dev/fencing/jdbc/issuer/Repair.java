package dev.fencing.jdbc.issuer;

/**
 * One change {@link TokenIssuer#reconcile} made: a resource's issued mark raised to its high-water mark, or a
 * missing lease row added at it.
 *
 * @param resource the resource repaired
 * @param before   the issued mark before, or -1 when the row was missing
 * @param after    the issued mark after (never lower than before)
 */
public record Repair(String resource, long before, long after) {
}
