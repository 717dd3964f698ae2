package dev.fencing.jdbc.internal;

import dev.fencing.sql.Dialect;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Asks the underlying driver about its session instead of believing (SPEC C9): whether it is inside a
 * transaction, and whether pgjdbc sends the statements of one text one by one. pgjdbc reports the state the
 * server sent with its last ReadyForQuery, so a transaction opened or ended by SQL the wrapper cannot follow
 * ({@code BEGIN}, a procedure's {@code COMMIT}, a failed {@code COMMIT}) is seen as the server sees it. On MariaDB,
 * whose drivers keep auto-commit on after a {@code START TRANSACTION} sent as SQL, the server is asked
 * ({@code @@in_transaction}). H2 answers with its session's auto-commit setting, which follows its SQL.
 */
final class SessionProbe {
    private final Connection raw;
    private final Object pgConnection;
    private final Method pgTransactionState;
    private final boolean askServer;
    private PreparedStatement inTransactionQuery;

    private SessionProbe(Connection raw, Object pgConnection, Method pgTransactionState, boolean askServer) {
        this.raw = raw;
        this.pgConnection = pgConnection;
        this.pgTransactionState = pgTransactionState;
        this.askServer = askServer;
    }

    /**
     * A probe of {@code raw}: pgjdbc's transaction state where {@code raw} is (or wraps) a pgjdbc connection; the
     * server's {@code @@in_transaction} on MariaDB.
     */
    static SessionProbe of(Connection raw, Dialect dialect) {
        try {
            Class<?> base = Class.forName("org.postgresql.core.BaseConnection", false, raw.getClass().getClassLoader());
            if (raw.isWrapperFor(base)) {
                return new SessionProbe(raw, raw.unwrap(base), base.getMethod("getTransactionState"), false);
            }
        } catch (ClassNotFoundException | NoSuchMethodException | SQLException | LinkageError notPgjdbc) {
            // not a pgjdbc connection: ask the auto-commit setting below
        }
        return new SessionProbe(raw, null, null, dialect == Dialect.MARIADB);
    }

    /**
     * Whether the next statement runs inside a transaction: auto-commit is off (pgjdbc then opens one before the
     * next statement when none is open), or the server reports one open or failed (a {@code BEGIN} sent as SQL).
     */
    boolean inTransaction() throws SQLException {
        if (!raw.getAutoCommit()) {
            return true;
        }
        if (askServer) {
            if (inTransactionQuery == null) {
                inTransactionQuery = raw.prepareStatement("SELECT @@in_transaction");
            }
            try (ResultSet rs = inTransactionQuery.executeQuery()) {
                return rs.next() && rs.getInt(1) != 0;
            }
        }
        if (pgTransactionState == null) {
            return false;
        }
        try {
            return !"IDLE".equals(((Enum<?>) pgTransactionState.invoke(pgConnection)).name());
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new SQLException("fencing: cannot read the transaction state from the PostgreSQL driver", e);
        }
    }

    /**
     * Whether the server has no transaction open on this session now, whatever the auto-commit setting (pgjdbc
     * opens one only with the next statement): false where the underlying driver cannot say.
     */
    boolean serverIdle() throws SQLException {
        if (pgTransactionState == null) {
            return false;
        }
        try {
            return "IDLE".equals(((Enum<?>) pgTransactionState.invoke(pgConnection)).name());
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new SQLException("fencing: cannot read the transaction state from the PostgreSQL driver", e);
        }
    }

    /**
     * The server process pgjdbc was told it talks to when it connected (its BackendKeyData), or 0 where the
     * underlying driver is not pgjdbc. A proxy that multiplexes sessions (PgBouncer) reports one of its own.
     */
    int connectedBackendPid() {
        if (pgConnection == null) {
            return 0;
        }
        try {
            Class<?> pg = Class.forName("org.postgresql.PGConnection", false, pgConnection.getClass().getClassLoader());
            return (Integer) pg.getMethod("getBackendPID").invoke(pgConnection);
        } catch (ReflectiveOperationException | LinkageError | ClassCastException unknown) {
            return 0;
        }
    }

    /**
     * Whether pgjdbc may send the statements of one text as separate queries, each its own transaction in
     * auto-commit ({@code preferQueryMode=simple} does for prepared statements): then a failing guard ahead of a
     * statement would not stop it.
     */
    static boolean sendsStatementsOneByOne(Connection raw) {
        try {
            Class<?> pg = Class.forName("org.postgresql.PGConnection", false, raw.getClass().getClassLoader());
            if (!raw.isWrapperFor(pg)) {
                return false;
            }
            Object mode = pg.getMethod("getPreferQueryMode").invoke(raw.unwrap(pg));
            return "SIMPLE".equals(((Enum<?>) mode).name());
        } catch (ReflectiveOperationException | SQLException | LinkageError | ClassCastException unknown) {
            return true; // cannot tell: never rely on one text being one transaction
        }
    }
}
