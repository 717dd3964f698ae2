/**
 * What happens to a refusal: the refusals themselves with their SQLStates ({@link dev.fencing.jdbc.audit.Refusals}),
 * enforce or record ({@link dev.fencing.jdbc.audit.RefusalPolicy}, the audit log), the per-resource metrics (JMX,
 * Micrometer when present), and the other SQLStates the driver raises or recognises ({@link
 * dev.fencing.jdbc.audit.SqlStates}). The bottom layer of the implementation: it uses no other package of it. Not an
 * API: the public classes here are seams for the driver's own packages and may change without notice.
 */
package dev.fencing.jdbc.audit;
