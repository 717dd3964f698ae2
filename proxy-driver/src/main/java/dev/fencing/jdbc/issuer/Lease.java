package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.FencingLease;

import java.time.Instant;

/**
 * A lease the issuer granted: the holder may write to the resource with {@code token} until it loses the lease
 * ({@link FencingLease#scope()} fences this thread's writes with it).
 *
 * @param resource  the resource leased
 * @param holder    who holds it, as given to {@link TokenIssuer#acquire}
 * @param token     the fencing token of this acquisition
 * @param expiresAt when the lease expires unless renewed, by the database clock
 */
public record Lease(String resource, String holder, long token, Instant expiresAt) implements FencingLease {
}
