package dev.fencing.jdbc.issuer;

import java.time.Duration;

/**
 * How {@link TokenIssuer#acquire} behaves when the resource is held, and whether it revokes the previous holder
 * at once.
 *
 * @param maxWait how long to wait for a live lease of another holder to end; zero fails at once
 * @param revoke immediate revocation: establish the new token as the resource's high-water mark in the same
 *               transaction as the issuance, so the previous holder's writes fail even if they arrive first
 * @param force  take the lease even from a live holder (an operator's takeover); its token becomes stale as soon
 *               as the new token reaches the resource, at once with {@code revoke}
 */
public record AcquireOptions(Duration maxWait, boolean revoke, boolean force) {
    /** Fail at once when held; no immediate revocation; no takeover. */
    public static final AcquireOptions DEFAULT = new AcquireOptions(Duration.ZERO, false, false);

    public AcquireOptions {
        if (maxWait == null || maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must be zero or positive, was " + maxWait);
        }
    }

    public AcquireOptions waitUpTo(Duration newWait) {
        return new AcquireOptions(newWait, revoke, force);
    }

    public AcquireOptions revokeImmediately(boolean newRevoke) {
        return new AcquireOptions(maxWait, newRevoke, force);
    }

    public AcquireOptions takeOver(boolean newForce) {
        return new AcquireOptions(maxWait, revoke, newForce);
    }
}
