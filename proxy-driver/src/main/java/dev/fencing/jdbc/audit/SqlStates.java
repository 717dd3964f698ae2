package dev.fencing.jdbc.audit;

/**
 * The SQLStates the driver uses that are not the fence's own (those are {@link dev.fencing.jdbc.FencingSqlState}):
 * standard states it raises where no database is involved yet, pgjdbc's states it reproduces where it ran the
 * caller's text on pgjdbc itself with the guard ahead, and the databases' states it recognises. Everything else a
 * database or its driver says reaches the caller untouched.
 */
public final class SqlStates {
    /** No registered driver accepts the URL, or it returned no connection (as {@code DriverManager} says). */
    public static final String CANNOT_CONNECT = "08001";
    /**
     * The connection was closed under the caller: the session fence closes a connection asked to move to another
     * token (its server session stays fenced at the first one).
     */
    public static final String CONNECTION_FAILURE = "08006";
    /** A race with another session changed what the statement relied on; running it again may succeed. */
    public static final String SERIALIZATION_FAILURE = "40001";
    /** PostgreSQL and MariaDB: a write in a read-only transaction. */
    public static final String READ_ONLY_TRANSACTION = "25006";
    /** A parameter index below 1, when the underlying driver did not refuse it itself. */
    public static final String INVALID_PARAMETER = "22023";

    /** pgjdbc: {@code executeUpdate} met a result set (the guard ran ahead, so pgjdbc could not check). */
    public static final String PG_RESULT_NOT_EXPECTED = "0100E";
    /** pgjdbc: {@code executeQuery} met no result set; also {@code executeQuery} of a {@code SET fencing.*}. */
    public static final String NO_RESULT_SET = "02000";
    /** PostgreSQL: {@code SET LOCAL} outside a transaction block (the server only warns; the fence refuses). */
    public static final String PG_NO_ACTIVE_TRANSACTION = "25P01";

    /** PostgreSQL: a lock was not available within {@code lock_timeout}. */
    public static final String LOCK_NOT_AVAILABLE = "55P03";

    /** PostgreSQL: undefined table. */
    public static final String PG_UNDEFINED_TABLE = "42P01";
    /** H2 and MariaDB: table not found. */
    public static final String TABLE_NOT_FOUND = "42S02";
    /** H2: table not found, with candidates. */
    public static final String H2_TABLE_NOT_FOUND_WITH_CANDIDATES = "42S03";
    /** H2: table not found in an empty database. */
    public static final String H2_TABLE_NOT_FOUND_EMPTY = "42S04";
    /** H2: schema not found. */
    public static final String H2_SCHEMA_NOT_FOUND = "90079";

    /** A unique index refused a row: on PostgreSQL's catalog, another session created the same object first. */
    public static final String UNIQUE_VIOLATION = "23505";
    /** PostgreSQL's internal error, the state of "tuple concurrently updated" (two sessions replacing one object). */
    public static final String PG_INTERNAL_ERROR = "XX000";
    /** PostgreSQL: a deadlock was detected. */
    public static final String DEADLOCK = "40P01";

    /** MariaDB/MySQL's "Lock wait timeout exceeded" (SQLState HY000, so told by its error code). */
    public static final int MARIADB_LOCK_WAIT_TIMEOUT = 1205;
    /** MariaDB/MySQL's "Deadlock found when trying to get lock" (SQLState 40001, the transaction rolled back). */
    public static final int MARIADB_DEADLOCK = 1213;
    /** MariaDB/MySQL's "You are not owner of thread" (a {@code KILL} of another user's session without the privilege). */
    public static final int MARIADB_NOT_OWNER = 1095;
    /** MariaDB/MySQL's "Unknown thread id" (a {@code KILL} of a session that is gone). */
    public static final int MARIADB_UNKNOWN_THREAD = 1094;

    /** Whether a MariaDB/MySQL statement gave up waiting for a row lock ({@code innodb_lock_wait_timeout}). */
    public static boolean isMariaDbLockWaitTimeout(java.sql.SQLException e) {
        return e.getErrorCode() == MARIADB_LOCK_WAIT_TIMEOUT && !"40001".equals(e.getSQLState());
    }

    /**
     * Whether the connection to the server failed (SQLState class {@code 08}, any driver): what was on its way may or
     * may not have reached the server, so the failure must reach the caller as it is, never be taken for a "no".
     */
    public static boolean isConnectionFailure(java.sql.SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("08");
    }

    /**
     * Whether DDL failed only because another session changed the same catalog object at the same moment (two
     * {@code CREATE OR REPLACE FUNCTION} of one function): running it again succeeds.
     */
    public static boolean isConcurrentCatalogChange(java.sql.SQLException e) {
        String state = e.getSQLState();
        return UNIQUE_VIOLATION.equals(state) || DEADLOCK.equals(state) || SERIALIZATION_FAILURE.equals(state)
                || PG_INTERNAL_ERROR.equals(state) && e.getMessage() != null
                && e.getMessage().contains("tuple concurrently updated");
    }

    /** PostgreSQL: the schema does not exist. */
    public static final String PG_INVALID_SCHEMA = "3F000";

    private SqlStates() {
    }

    /**
     * Whether a database said a table (or the schema that should hold it) does not exist: PostgreSQL {@code 42P01}
     * and {@code 3F000}; H2 {@code 42S02}, {@code 42S03} (with candidates), {@code 42S04} (empty database) and
     * {@code 90079}; MariaDB {@code 42S02}. The one reading of "table missing" for the fence's tables.
     */
    public static boolean isMissingTable(String state) {
        return PG_UNDEFINED_TABLE.equals(state) || PG_INVALID_SCHEMA.equals(state) || TABLE_NOT_FOUND.equals(state)
                || H2_TABLE_NOT_FOUND_WITH_CANDIDATES.equals(state) || H2_TABLE_NOT_FOUND_EMPTY.equals(state)
                || H2_SCHEMA_NOT_FOUND.equals(state);
    }
}
