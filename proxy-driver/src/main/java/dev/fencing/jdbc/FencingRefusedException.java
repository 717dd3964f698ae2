package dev.fencing.jdbc;

import java.sql.SQLException;

/**
 * A statement the fence refused. Nothing it would have changed was changed; the SQLState is one of
 * {@link FencingSqlState}. Carries the resource, the presented token and the high-water mark where known.
 */
public final class FencingRefusedException extends SQLException {
    private static final long serialVersionUID = 1L;

    private final String reason;
    private final String resource;
    private final long token;
    private final long highWaterMark;

    public FencingRefusedException(String message, String sqlState, String resource, long token, long highWaterMark) {
        this(message, message, sqlState, resource, token, highWaterMark);
    }

    /**
     * @param reason why, in a few words that stay the same for every refusal of the kind (no token values), as
     *               {@link FencingAudit} counts them
     */
    public FencingRefusedException(String message, String reason, String sqlState, String resource, long token,
                                   long highWaterMark) {
        super(message, sqlState);
        this.reason = reason;
        this.resource = resource;
        this.token = token;
        this.highWaterMark = highWaterMark;
    }

    /** Why, without token values: the same text for every refusal of one kind and resource. */
    public String getReason() {
        return reason;
    }

    /** The resource the statement was guarded for, or {@code null} when not known. */
    public String getResource() {
        return resource;
    }

    /** The token presented, or 0 when there was no valid one. */
    public long getToken() {
        return token;
    }

    /** The resource's high-water mark when the statement was refused, or -1 when not known. */
    public long getHighWaterMark() {
        return highWaterMark;
    }
}
