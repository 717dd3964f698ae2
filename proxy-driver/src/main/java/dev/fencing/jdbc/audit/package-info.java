/**
 * What happens to a refusal: the refusals themselves with their SQLStates ({@link dev.fencing.jdbc.audit.Refusals}),
 * enforce or record ({@link dev.fencing.jdbc.audit.RefusalPolicy}, the audit log), and the per-resource metrics
 * (JMX, Micrometer when present). Not an API: the public classes here are seams for the driver's own packages and
 * may change without notice.
 */
package dev.fencing.jdbc.audit;
