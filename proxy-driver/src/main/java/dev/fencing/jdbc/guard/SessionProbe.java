package dev.fencing.jdbc.guard;

import dev.fencing.sql.Dialect;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Asks the underlying driver about its session instead of believing (SPEC C9): whether it is inside a
 * transaction, and whether pgjdbc sends the statements of one text one by one. pgjdbc reports the state the
 * server sent with its last ReadyForQuery, so a transaction opened or ended by SQL the wrapper cannot follow
 * ({@code BEGIN}, a procedure's {@code COMMIT}, a failed {@code COMMIT}) is seen as the server sees it. MariaDB
 * Connector/J and MySQL Connector/J keep the status flags the server sent with its last reply (in a transaction,
 * auto-commit), which follow {@code START TRANSACTION}, {@code SET autocommit} and implicit commits sent as SQL;
 * another MySQL-family driver makes the probe ask the server ({@code @@in_transaction}, {@code @@autocommit}).
 * H2 answers with its session's auto-commit setting, which follows its SQL.
 */
public final class SessionProbe {
    /** The MySQL protocol's server status flags: a transaction is open; auto-commit is on. */
    private static final int IN_TRANSACTION = 1;
    private static final int AUTOCOMMIT = 2;

    private final Connection raw;
    /** The object whose {@code statusMethod} answers: pgjdbc's BaseConnection, or a MySQL-family status holder. */
    private final Object source;
    private final Method statusMethod;
    private final Kind kind;
    private PreparedStatement inTransactionQuery;
    /**
     * Whether a statement failed since the flags were last read from a reply: an error packet carries no status
     * flags, and MariaDB Connector/J then marks the session in a transaction whatever the server's state (measured
     * with 3.5.7: 16386 before a failed {@code SELECT nosuchcol} in auto-commit, 16387 after it), while MySQL
     * Connector/J keeps the flags of the reply before, which a deadlock's rollback made wrong.
     */
    private boolean flagsStale;

    private enum Kind { PGJDBC, STATUS_FLAGS, ASK_SERVER, AUTO_COMMIT_ONLY }

    /**
     * The holder of the warning count of the last reply (MariaDB Connector/J's context, MySQL Connector/J's
     * protocol), its getter and setter; {@code null} for other drivers.
     */
    private Object warningSource;
    private Method getWarningCount;
    private Method setWarningCount;

    private SessionProbe(Connection raw, Object source, Method statusMethod, Kind kind) {
        this.raw = raw;
        this.source = source;
        this.statusMethod = statusMethod;
        this.kind = kind;
    }

    /** {@code type}: the public class or interface declaring the getter and setter, loaded beside the driver. */
    private SessionProbe withWarningCount(Object holder, String type, String getter, String setter) {
        try {
            Class<?> declaring = Class.forName(type, false, holder.getClass().getClassLoader());
            getWarningCount = declaring.getMethod(getter);
            setWarningCount = declaring.getMethod(setter, int.class);
            getWarningCount.invoke(holder);
            warningSource = holder;
        } catch (ReflectiveOperationException | LinkageError | RuntimeException unknown) {
            getWarningCount = null;
            setWarningCount = null;
        }
        return this;
    }

    /**
     * A probe of {@code raw}: pgjdbc's transaction state where {@code raw} is (or wraps) a pgjdbc connection; the
     * server status flags MariaDB Connector/J or MySQL Connector/J hold; the server's {@code @@in_transaction} for
     * another driver on MariaDB.
     */
    static SessionProbe of(Connection raw, Dialect dialect) {
        ClassLoader loader = raw.getClass().getClassLoader();
        try {
            Class<?> base = Class.forName("org.postgresql.core.BaseConnection", false, loader);
            if (raw.isWrapperFor(base)) {
                return new SessionProbe(raw, raw.unwrap(base), base.getMethod("getTransactionState"), Kind.PGJDBC);
            }
        } catch (ClassNotFoundException | NoSuchMethodException | SQLException | LinkageError notPgjdbc) {
            // not a pgjdbc connection
        }
        if (dialect != Dialect.MARIADB) {
            return new SessionProbe(raw, null, null, Kind.AUTO_COMMIT_ONLY);
        }
        try {
            Class<?> mariadb = Class.forName("org.mariadb.jdbc.Connection", false, loader);
            if (raw.isWrapperFor(mariadb)) {
                Object context = mariadb.getMethod("getContext").invoke(raw.unwrap(mariadb));
                Method status = Class.forName("org.mariadb.jdbc.client.Context", false, loader)
                        .getMethod("getServerStatus");
                status.invoke(context);
                return new SessionProbe(raw, context, status, Kind.STATUS_FLAGS)
                        .withWarningCount(context, "org.mariadb.jdbc.client.Context", "getWarning", "setWarning");
            }
        } catch (ReflectiveOperationException | SQLException | LinkageError | RuntimeException notMariaDb) {
            // not MariaDB Connector/J (or a version without the context): try the next
        }
        try {
            Class<?> mysql = Class.forName("com.mysql.cj.MysqlConnection", false, loader);
            if (raw.isWrapperFor(mysql)) {
                Object session = mysql.getMethod("getSession").invoke(raw.unwrap(mysql));
                Object serverSession = Class.forName("com.mysql.cj.Session", false, loader)
                        .getMethod("getServerSession").invoke(session);
                Method status = Class.forName("com.mysql.cj.protocol.ServerSession", false, loader)
                        .getMethod("getStatusFlags");
                status.invoke(serverSession);
                SessionProbe probe = new SessionProbe(raw, serverSession, status, Kind.STATUS_FLAGS);
                try {
                    Object protocol = Class.forName("com.mysql.cj.NativeSession", false, loader)
                            .getMethod("getProtocol").invoke(session);
                    probe.withWarningCount(protocol, "com.mysql.cj.protocol.a.NativeProtocol", "getWarningCount",
                            "setWarningCount");
                } catch (ReflectiveOperationException | LinkageError | RuntimeException noProtocol) {
                    // the flags are still read; only the warning count is not kept across the driver's statements
                }
                return probe;
            }
        } catch (ReflectiveOperationException | SQLException | LinkageError | RuntimeException notMysql) {
            // not MySQL Connector/J: ask the server
        }
        return new SessionProbe(raw, null, null, Kind.ASK_SERVER);
    }

    /**
     * Whether the next statement runs inside a transaction: the server reports one open or failed (a {@code BEGIN}
     * or {@code START TRANSACTION} sent as SQL), or auto-commit off (pgjdbc then opens one with the next
     * statement). On MariaDB and MySQL only the server's flags count, never the connector's own auto-commit
     * setting: {@code SET autocommit = 1} sent as SQL after {@code setAutoCommit(false)} leaves MySQL Connector/J
     * believing auto-commit is off while each statement commits on its own (found by review: the locking read and
     * the write then ran as two transactions).
     */
    boolean inTransaction() throws SQLException {
        switch (kind) {
            case PGJDBC:
                // pgjdbc opens the transaction of auto-commit off with the next statement: idle is not enough
                return !raw.getAutoCommit() || !"IDLE".equals(((Enum<?>) invoke()).name());
            case STATUS_FLAGS:
                int flags = ((Number) invoke()).intValue();
                return (flags & IN_TRANSACTION) != 0 || (flags & AUTOCOMMIT) == 0;
            case ASK_SERVER:
                if (inTransactionQuery == null) {
                    inTransactionQuery = raw.prepareStatement("SELECT @@in_transaction, @@autocommit"
                            + Dialect.MARIADB.oneRow());
                }
                try (ResultSet rs = inTransactionQuery.executeQuery()) {
                    return rs.next() && (rs.getInt(1) != 0 || rs.getInt(2) == 0);
                }
            default:
                return !raw.getAutoCommit();
        }
    }

    /**
     * Whether the server has a transaction open (or failed) on this session now, whatever the auto-commit setting:
     * pgjdbc's ReadyForQuery state, the MySQL protocol's flags, or the server's {@code @@in_transaction}; H2: auto-commit off.
     */
    boolean inServerTransaction() throws SQLException {
        switch (kind) {
            case PGJDBC:
                return !"IDLE".equals(((Enum<?>) invoke()).name());
            case STATUS_FLAGS:
                return (((Number) invoke()).intValue() & IN_TRANSACTION) != 0;
            case ASK_SERVER:
                return inTransaction() && !transactionStartsWithNextStatement();
            default:
                return !raw.getAutoCommit();
        }
    }

    /**
     * Whether the next statement opens a transaction that stays open after it: auto-commit is off and no
     * transaction is open on the server yet.
     */
    boolean transactionStartsWithNextStatement() throws SQLException {
        switch (kind) {
            case PGJDBC:
                return !raw.getAutoCommit() && "IDLE".equals(((Enum<?>) invoke()).name());
            case STATUS_FLAGS:
                int flags = ((Number) invoke()).intValue();
                return (flags & AUTOCOMMIT) == 0 && (flags & IN_TRANSACTION) == 0;
            case ASK_SERVER:
                try (Statement s = raw.createStatement();
                     ResultSet rs = s.executeQuery("SELECT @@in_transaction, @@autocommit" + Dialect.MARIADB.oneRow())) {
                    return rs.next() && rs.getInt(1) == 0 && rs.getInt(2) == 0;
                }
            default:
                return false;
        }
    }

    /**
     * Tells the probe that a statement on the session failed: the next question about the transaction asks the
     * server once (whose reply sets the connector's flags again) instead of believing flags no reply confirmed.
     * Found by issue 23: after a failed read, the next auto-commit write was taken for one inside a transaction
     * that began without a token, and refused.
     */
    void afterFailure() {
        flagsStale = kind == Kind.STATUS_FLAGS;
    }

    /**
     * The number of warnings the server reported with the last reply, as the underlying driver keeps it for
     * {@code getWarnings()}; 0 where the driver is not one whose count the probe can read.
     */
    int warningCount() {
        if (warningSource == null) {
            return 0;
        }
        try {
            return ((Number) getWarningCount.invoke(warningSource)).intValue();
        } catch (ReflectiveOperationException | RuntimeException unknown) {
            return 0;
        }
    }

    /**
     * After the driver's own {@code COMMIT} that followed a caller's statement with {@code count} warnings: the
     * underlying driver's count is set back to the caller's statement's, so its {@code getWarnings()} asks the
     * server ({@code SHOW WARNINGS}), which still holds them: a {@code COMMIT} uses no table and keeps the
     * diagnostics of the statement before it (measured on 10.11). Nothing is invented: the warnings are the server's.
     */
    void restoreWarningCount(int count) {
        if (warningSource == null || count <= 0) {
            return;
        }
        try {
            setWarningCount.invoke(warningSource, count);
        } catch (ReflectiveOperationException | RuntimeException unknown) {
            // the count stays the COMMIT's: getWarnings() then says nothing, as before
        }
    }

    private Object invoke() throws SQLException {
        if (flagsStale) {
            // Any reply with a status sets the connector's flags; this one is read to its end, so its last packet does.
            try (Statement s = raw.createStatement();
                 ResultSet rs = s.executeQuery("SELECT @@in_transaction" + Dialect.MARIADB.oneRow())) {
                while (rs.next()) {
                    rs.getInt(1);
                }
            }
            flagsStale = false;
        }
        try {
            return statusMethod.invoke(source);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new SQLException("fencing: cannot read the transaction state from the underlying driver", e);
        }
    }

    /**
     * MariaDB/MySQL: whether the server reads backslashes in strings as plain characters on this session now
     * ({@code NO_BACKSLASH_ESCAPES}), from {@code @@sql_mode}. Not from the status flags of the server's last reply:
     * after {@code SET STATEMENT sql_mode = ... FOR ...} MariaDB keeps reporting the statement's mode there while the
     * session reads by its own again (found by review: a call hidden in what the flag made a string ran).
     */
    boolean noBackslashEscapes() throws SQLException {
        try (Statement s = raw.createStatement();
             ResultSet rs = s.executeQuery("SELECT FIND_IN_SET('NO_BACKSLASH_ESCAPES', @@sql_mode)"
                     + Dialect.MARIADB.oneRow())) {
            return rs.next() && rs.getInt(1) > 0;
        }
    }

    /**
     * Whether {@link #inTransaction()} reads the server's status flags from the last reply, so it sees a
     * transaction opened or ended by SQL ({@code START TRANSACTION}, {@code COMMIT}) with no round trip of its own.
     */
    boolean followsSqlTransactions() {
        return kind == Kind.STATUS_FLAGS;
    }

    /**
     * Whether the server has no transaction open on this session now, whatever the auto-commit setting (pgjdbc
     * opens one only with the next statement): false where the underlying driver cannot say.
     */
    boolean serverIdle() throws SQLException {
        if (kind == Kind.STATUS_FLAGS) {
            return !inServerTransaction();
        }
        return kind == Kind.PGJDBC && "IDLE".equals(((Enum<?>) invoke()).name());
    }

    /**
     * MariaDB/MySQL: the server session the connector was told it talks to when it connected (the handshake's
     * connection id: MariaDB Connector/J's {@code getThreadId()}, MySQL Connector/J's {@code getId()}), or 0 where
     * the connector does not say. A proxy that shares server sessions (ProxySQL, MaxScale) hands out ids of its own.
     */
    long connectedThreadId() {
        ClassLoader loader = raw.getClass().getClassLoader();
        for (String[] getter : new String[][] {{"org.mariadb.jdbc.Connection", "getThreadId"},
                {"com.mysql.cj.jdbc.JdbcConnection", "getId"}}) {
            try {
                Class<?> type = Class.forName(getter[0], false, loader);
                if (raw.isWrapperFor(type)) {
                    return ((Number) type.getMethod(getter[1]).invoke(raw.unwrap(type))).longValue();
                }
            } catch (ReflectiveOperationException | SQLException | LinkageError | RuntimeException unknown) {
                // not this connector: try the next
            }
        }
        return 0;
    }

    /**
     * The server process pgjdbc was told it talks to when it connected (its BackendKeyData), or 0 where the
     * underlying driver is not pgjdbc. A proxy that multiplexes sessions (PgBouncer) reports one of its own.
     */
    int connectedBackendPid() {
        if (kind != Kind.PGJDBC) {
            return 0;
        }
        try {
            Class<?> pg = Class.forName("org.postgresql.PGConnection", false, source.getClass().getClassLoader());
            return (Integer) pg.getMethod("getBackendPID").invoke(source);
        } catch (ReflectiveOperationException | LinkageError | ClassCastException unknown) {
            return 0;
        }
    }

    /**
     * Whether pgjdbc may send the statements of one text as separate queries, each its own transaction in
     * auto-commit ({@code preferQueryMode=simple} does for prepared statements): then a failing guard ahead of a
     * statement would not stop it.
     */
    public static boolean sendsStatementsOneByOne(Connection raw) {
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
