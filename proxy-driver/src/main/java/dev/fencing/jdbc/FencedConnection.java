package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * A connection of the fencing driver, reached with {@code connection.unwrap(FencedConnection.class)} (also
 * through a pool's proxy). Its typed setters set the token and resource of this connection; a thread scope
 * ({@link Fencing#scope}) takes precedence over them.
 */
public interface FencedConnection extends Connection {
    /** Sets this connection's token; {@code token} must be positive. Same as {@code SET fencing.token = n}. */
    void setFencingToken(long token) throws SQLException;

    /** Removes the token set on this connection; static sources (settings, file, environment) apply again. */
    void clearFencingToken();

    /**
     * Sets this connection's resource; {@code null} or blank returns to the configured one. Same as
     * {@code SET fencing.resource = 'name'}: a name that is not 1 to 200 characters from {@code A-Z a-z 0-9} and
     * {@code _ . : / @ + = -} is refused ({@link FencingSqlState#CONFIGURATION}) and changes nothing.
     */
    void setFencingResource(String resource) throws SQLException;

    /** The resource a mutation run now would be guarded for. */
    String getFencingResource();

    /** The token a mutation run now would present, or empty when there is none. */
    OptionalLong getFencingToken() throws SQLException;

    /** The resource's high-water mark as the database holds it now (0 when it has none), read without a lock. */
    long readHighWaterMark(String resource) throws SQLException;
}
