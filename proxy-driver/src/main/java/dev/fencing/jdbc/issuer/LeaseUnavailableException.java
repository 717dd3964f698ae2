package dev.fencing.jdbc.issuer;

import java.sql.SQLException;
import java.time.Instant;

/** Another holder has a live lease on the resource, and it did not end within the wait. */
public final class LeaseUnavailableException extends SQLException {
    private static final long serialVersionUID = 1L;

    private final String holder;
    private final transient Instant expiresAt;

    LeaseUnavailableException(String resource, String holder, Instant expiresAt) {
        super("fencing: resource '" + resource + "' is held by '" + holder + "' until " + expiresAt
                + " (database time)");
        this.holder = holder;
        this.expiresAt = expiresAt;
    }

    /** The holder of the live lease. */
    public String getHolder() {
        return holder;
    }

    /** When that lease expires unless renewed, by the database clock. */
    public Instant getExpiresAt() {
        return expiresAt;
    }
}
