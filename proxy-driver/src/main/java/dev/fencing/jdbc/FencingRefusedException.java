package dev.fencing.jdbc;

import java.sql.SQLException;

/**
 * A statement the fence refused. Nothing it would have changed was changed; the SQLState is one of
 * {@link FencingSqlState}. Carries the resource, the presented token and the high-water mark where known.
 */
public final class FencingRefusedException extends SQLException {
    private static final long serialVersionUID = 1L;

    private final String resource;
    private final long token;
    private final long highWaterMark;

    public FencingRefusedException(String message, String sqlState, String resource, long token, long highWaterMark) {
        super(message, sqlState);
        this.resource = resource;
        this.token = token;
        this.highWaterMark = highWaterMark;
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
