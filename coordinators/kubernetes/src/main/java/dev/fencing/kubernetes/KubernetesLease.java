package dev.fencing.kubernetes;

import dev.fencing.jdbc.FencingLease;

/**
 * One leadership of a Kubernetes Lease, as the fence sees it: {@link #scope()} fences this thread's writes with it,
 * {@link #holdForProcess()} every thread's.
 *
 * @param resource the fencing resource the Lease protects
 * @param token    the issuer's token written into the Lease when this candidate became its holder
 * @param lease    the Lease ({@code namespace/name})
 * @param identity this candidate's holder identity
 */
public record KubernetesLease(String resource, long token, String lease, String identity) implements FencingLease {
}
