package dev.fencing.sql;

/** Which transaction-control statement a text is; the driver uses it to know when the guard's locks are gone. */
public enum TransactionControl {
    BEGIN,
    COMMIT,
    ROLLBACK,
    SAVEPOINT,
    ROLLBACK_TO_SAVEPOINT,
    RELEASE_SAVEPOINT,
    SET_TRANSACTION
}
