package dev.fencing.legacy;

/** The application's unchecked wrapper for SQL failures, as legacy DAOs had. */
public class DataAccessException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public DataAccessException(String message, Throwable cause) {
        super(message, cause);
    }
}
