package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.guard.FenceTables;
import dev.fencing.jdbc.guard.H2Durability;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochSql;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.LeaseSql;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The issuer's one connection to its database, through the underlying driver: opened lazily (tables located and
 * qualified once per connection), one transaction at a time for all threads, dropped after any failure and
 * reopened by the next unit of work.
 */
final class IssuerDatabase implements AutoCloseable {
    /** One unit of work in one transaction, on the rows of the located tables. */
    interface Work<T> {
        T run(LeaseRows rows) throws SQLException;
    }

    private final String url;
    private final Properties properties;
    private final EpochTable epochTable;
    private final EpochTable leaseTable;
    /** The executor {@code setNetworkTimeout} asks for (the drivers used here abort nothing through it). */
    private static final java.util.concurrent.Executor DIRECT = Runnable::run;

    private final ReentrantLock lock = new ReentrantLock();
    /** The open connection's rows, or {@code null} when no connection is open. */
    private LeaseRows rows;

    IssuerDatabase(String url, Properties properties, EpochTable epochTable, EpochTable leaseTable) {
        this.url = url;
        this.properties = properties;
        this.epochTable = epochTable;
        this.leaseTable = leaseTable;
    }

    /** Runs {@code work} in one transaction; any failure rolls back and drops the connection (reopened next time). */
    <T> T inTransaction(Work<T> work) throws SQLException {
        return inTransaction(work, 0);
    }

    /**
     * {@link #inTransaction(Work)} with every wait for the server's answer during the work and its commit bounded by
     * {@code boundMillis} (0: the connection's own bound, the URL's {@code socketTimeout} if any): the connection's
     * network timeout for the work, set back afterwards. Past the bound the underlying driver fails the work with a
     * connection error ({@code 08xxx}) and the connection is dropped.
     */
    <T> T inTransaction(Work<T> work, long boundMillis) throws SQLException {
        lock.lock();
        try {
            LeaseRows open = open();
            Connection c = open.connection();
            int previous = -1;
            try {
                if (boundMillis > 0) {
                    previous = c.getNetworkTimeout();
                    c.setNetworkTimeout(DIRECT, (int) Math.min(Integer.MAX_VALUE, boundMillis));
                }
                T result = work.run(open);
                c.commit();
                return result;
            } catch (LeaseUnavailableException | LeaseLostException expected) {
                c.rollback();
                throw expected;
            } catch (SQLException | RuntimeException e) {
                drop(c, e);
                throw e;
            } finally {
                if (previous >= 0 && rows == open) {
                    try {
                        c.setNetworkTimeout(DIRECT, previous);
                    } catch (SQLException notRestored) {
                        drop(c, notRestored); // never keep a connection with a bound meant for one renewal
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Drops the open connection after {@code failure}: rolled back and closed, each tried on its own. */
    private void drop(Connection c, Exception failure) {
        rows = null;
        try {
            c.rollback();
        } catch (SQLException rollbackFailure) {
            failure.addSuppressed(rollbackFailure);
        }
        try {
            c.close();
        } catch (SQLException closeFailure) {
            failure.addSuppressed(closeFailure);
        }
    }

    @Override
    public void close() throws SQLException {
        lock.lock();
        try {
            if (rows != null) {
                rows.connection().close();
            }
        } finally {
            rows = null;
            lock.unlock();
        }
    }

    private LeaseRows open() throws SQLException {
        if (rows == null) {
            Connection c = DriverManager.getConnection(url, properties);
            try {
                Dialect dialect = Dialect.of(c.getMetaData().getDatabaseProductName(), url);
                if (!new LeaseSql(dialect, leaseTable).supported()) {
                    throw unsupported(dialect);
                }
                if (dialect == Dialect.H2) {
                    H2Durability.require(c);
                }
                // Located once per connection, qualified: no search_path or schema set later moves them.
                EpochTable locatedEpoch = FenceTables.locate(c, dialect, epochTable);
                EpochTable locatedLease = FenceTables.locate(c, dialect, leaseTable);
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                rows = new LeaseRows(c, new EpochSql(dialect, locatedEpoch), new LeaseSql(dialect, locatedLease),
                        locatedEpoch, locatedLease);
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
        }
        return rows;
    }

    static SQLException unsupported(Dialect dialect) {
        return new SQLException("fencing: the token issuer supports H2, PostgreSQL, MariaDB and MySQL, not " + dialect,
                FencingSqlState.CONFIGURATION);
    }
}
