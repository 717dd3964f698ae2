package dev.fencing.jdbc.issuer;

import java.time.Instant;
import java.util.List;

/**
 * One resource as the epoch table and the lease table see it.
 *
 * @param resource      the resource
 * @param highWaterMark the greatest token the resource has accepted (0 when it has none)
 * @param issued        the greatest token the issuer handed out, or -1 when the resource has no lease row
 * @param holder        the current holder, or {@code null} when free
 * @param expiresAt     when the holder's lease expires by the database clock, or {@code null}
 * @param live          whether the holder's lease is unexpired by the database clock
 * @param warnings      restore-safety findings, empty when all is well ({@link TokenIssuer#reconcile})
 */
public record LeaseStatus(String resource, long highWaterMark, long issued, String holder, Instant expiresAt,
                          boolean live, List<String> warnings) {
    public LeaseStatus {
        warnings = List.copyOf(warnings);
    }

    /** Whether the resource has a lease row (its tokens are checked against the issued mark). */
    public boolean underIssuer() {
        return issued >= 0;
    }
}
