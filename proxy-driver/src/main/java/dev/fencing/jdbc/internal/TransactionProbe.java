package dev.fencing.jdbc.internal;

import dev.fencing.sql.Dialect;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Asks the underlying driver whether its session is inside a transaction (SPEC C9): pgjdbc reports the state the
 * server sent with its last ReadyForQuery, so a transaction opened or ended by SQL the wrapper cannot follow
 * ({@code BEGIN}, a procedure's {@code COMMIT}, a failed {@code COMMIT}) is seen as the server sees it. On MariaDB,
 * whose drivers keep auto-commit on after a {@code START TRANSACTION} sent as SQL, the server is asked
 * ({@code @@in_transaction}). H2 answers with its session's auto-commit setting, which follows its SQL.
 */
final class TransactionProbe {
    private final Connection raw;
    private final Object pgConnection;
    private final Method pgTransactionState;
    private final boolean askServer;
    private PreparedStatement inTransactionQuery;

    private TransactionProbe(Connection raw, Object pgConnection, Method pgTransactionState, boolean askServer) {
        this.raw = raw;
        this.pgConnection = pgConnection;
        this.pgTransactionState = pgTransactionState;
        this.askServer = askServer;
    }

    /**
     * A probe of {@code raw}: pgjdbc's transaction state where {@code raw} is (or wraps) a pgjdbc connection; the
     * server's {@code @@in_transaction} on MariaDB.
     */
    static TransactionProbe of(Connection raw, Dialect dialect) {
        try {
            Class<?> base = Class.forName("org.postgresql.core.BaseConnection", false, raw.getClass().getClassLoader());
            if (raw.isWrapperFor(base)) {
                return new TransactionProbe(raw, raw.unwrap(base), base.getMethod("getTransactionState"), false);
            }
        } catch (ClassNotFoundException | NoSuchMethodException | SQLException | LinkageError notPgjdbc) {
            // not a pgjdbc connection: ask the auto-commit setting below
        }
        return new TransactionProbe(raw, null, null, dialect == Dialect.MARIADB);
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
}
