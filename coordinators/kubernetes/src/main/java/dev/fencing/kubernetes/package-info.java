/**
 * Fencing tokens for the leader of a Kubernetes Lease (fabric8's {@code LeaderElector}): a token of the driver's
 * issuer, in the application's database, written into the Lease by the update that makes the candidate its holder;
 * never the Lease's {@code leaseTransitions}, which starts again at 0 when the Lease is recreated. See
 * docs/kubernetes.md.
 */
package dev.fencing.kubernetes;
