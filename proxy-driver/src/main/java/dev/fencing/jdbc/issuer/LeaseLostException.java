package dev.fencing.jdbc.issuer;

import java.sql.SQLException;

/** The holder no longer has the lease: it was released, taken over, or a newer token reached the resource. */
public final class LeaseLostException extends SQLException {
    private static final long serialVersionUID = 1L;

    private final String resource;

    LeaseLostException(String resource, String message) {
        super(message);
        this.resource = resource;
    }

    /** The resource whose lease was lost. */
    public String resource() {
        return resource;
    }
}
