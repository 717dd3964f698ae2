package dev.fencing.sql;

/** Which transaction-control statement a text is; the driver uses it to know when the guard's locks are gone. */
public enum TransactionControl {
    /** {@code BEGIN} or {@code START TRANSACTION} without an access mode: the server's default access mode. */
    BEGIN,
    /** {@code BEGIN ... READ ONLY}: the caller asks for a read-only transaction; the fence admits nothing in it. */
    BEGIN_READ_ONLY,
    /** {@code BEGIN ... READ WRITE}: lifts the server's read-only mode for the transaction (SPEC C10). */
    BEGIN_READ_WRITE,
    COMMIT,
    ROLLBACK,
    SAVEPOINT,
    ROLLBACK_TO_SAVEPOINT,
    RELEASE_SAVEPOINT,
    /** {@code SET TRANSACTION} or {@code SET SESSION CHARACTERISTICS} that does not ask for read-write. */
    SET_TRANSACTION,
    /** {@code SET TRANSACTION ... READ WRITE}: lifts the server's read-only mode for the transaction (SPEC C10). */
    SET_TRANSACTION_READ_WRITE,
    /** {@code SET TRANSACTION ... READ ONLY}: the caller asks for a read-only transaction. */
    SET_TRANSACTION_READ_ONLY,
    /** {@code SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY}, MariaDB {@code SET SESSION TRANSACTION READ ONLY}. */
    SET_SESSION_READ_ONLY;

    /** Whether the statement opens a transaction ({@code BEGIN}, {@code START TRANSACTION}, in any access mode). */
    public boolean begins() {
        return this == BEGIN || this == BEGIN_READ_ONLY || this == BEGIN_READ_WRITE;
    }

    /** Whether the statement asks the server for a read-write transaction, which only a current token may do. */
    public boolean liftsReadOnly() {
        return this == BEGIN_READ_WRITE || this == SET_TRANSACTION_READ_WRITE;
    }
}
