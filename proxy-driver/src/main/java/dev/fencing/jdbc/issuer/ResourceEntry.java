package dev.fencing.jdbc.issuer;

/**
 * One row of the resource table as {@code fencing map --list} shows it (SPEC C11): a resource, and the table it owns,
 * qualified, or {@code null} for a resource declared without a table.
 */
public record ResourceEntry(String resource, String table) {
}
