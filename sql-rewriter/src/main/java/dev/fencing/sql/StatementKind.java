package dev.fencing.sql;

/** What a piece of SQL text does, as far as fencing is concerned. */
public enum StatementKind {
    /** Known to change no data: passes without a token. */
    READ_ONLY,
    /** Changes data (or may): needs a valid token and runs guarded. */
    MUTATION,
    /** BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE, SET TRANSACTION: never guarded, never needs a token. */
    TRANSACTION_CONTROL,
    /** Session settings (SET search_path, SET statement_timeout, RESET, SHOW ...): change no data. */
    SESSION_SETTING,
    /** {@code SET fencing.<name> = <value>}: handled by the driver, never sent to the database. */
    FENCING_SETTING,
    /** Could change data but cannot be guarded (unparseable, or mixes transaction control with writes): refused. */
    UNGUARDABLE
}
