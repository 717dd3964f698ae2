package dev.fencing.sql;

/**
 * The SQL that keeps work the fence has not admitted read-only on the server (SPEC C10), per dialect: the session's
 * default access mode, the read-write transaction only admission opens, and the check that the server really is in
 * read-only mode. H2 has no per-session read-only mode: {@link #of} returns {@code null} for it.
 */
public final class ReadOnlySql {
    private final Dialect dialect;

    private ReadOnlySql(Dialect dialect) {
        this.dialect = dialect;
    }

    /** The read-only SQL of {@code dialect}, or {@code null} when the database has no session read-only mode. */
    public static ReadOnlySql of(Dialect dialect) {
        return dialect == Dialect.POSTGRESQL || dialect == Dialect.MARIADB ? new ReadOnlySql(dialect) : null;
    }

    /**
     * The PostgreSQL startup option that makes the session read-only from its first statement and the value
     * {@code RESET ALL} and {@code DISCARD ALL} return to (pgjdbc's {@code options} property).
     */
    public static final String POSTGRES_STARTUP_OPTION = "-c default_transaction_read_only=on";

    /** The name of the setting PostgreSQL reports to the client whenever it changes (PostgreSQL 14+). */
    public static final String POSTGRES_REPORTED_SETTING = "default_transaction_read_only";

    /** Makes the session's later transactions read-only. */
    public String readOnlySession() {
        return dialect == Dialect.POSTGRESQL ? "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"
                : "SET SESSION TRANSACTION READ ONLY";
    }

    /** Makes the session's later transactions read-write (a session the session fence registered). */
    public String readWriteSession() {
        return dialect == Dialect.POSTGRESQL ? "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE"
                : "SET SESSION TRANSACTION READ WRITE";
    }

    /**
     * Makes the transaction read-write: PostgreSQL, the current one before its first query (a no-op in one that is
     * read-write already); MariaDB/MySQL, the next one.
     */
    public String readWriteTransaction() {
        return "SET TRANSACTION READ WRITE";
    }

    /** Makes the transaction read-only: PostgreSQL, the current one at any point; MariaDB/MySQL, the next one. */
    public String readOnlyTransaction() {
        return "SET TRANSACTION READ ONLY";
    }

    /** Opens a read-write transaction (MariaDB/MySQL, the driver's own transaction around a guarded write). */
    public String startReadWrite() {
        return "START TRANSACTION READ WRITE";
    }

    /**
     * One row: whether the session's default access mode is read-only now, and whether it is what a reset returns
     * to (PostgreSQL); MariaDB answers the first only. {@code 1}/{@code on} mean read-only.
     */
    public String readOnlyCheck() {
        return dialect == Dialect.POSTGRESQL
                ? "SELECT pg_catalog.current_setting('default_transaction_read_only'), reset_val FROM pg_catalog.pg_settings"
                + " WHERE name = 'default_transaction_read_only'"
                : "SELECT @@session.tx_read_only, @@session.tx_read_only" + Dialect.MARIADB.oneRow();
    }
}
