package dev.fencing.jdbc.wrapper;

import dev.fencing.jdbc.guard.EpochSchema;
import dev.fencing.jdbc.config.Settings;
import dev.fencing.sql.Analysis;
import dev.fencing.sql.SqlAnalyzer;

import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The one place the fencing driver's JDBC wrappers are made (HikariCP's {@code ProxyFactory}): a raw object that
 * leads back to the raw connection reaches the caller only through here, so a new way to obtain one needs one
 * call, and {@code WrapperCoverageTest} checks every {@code java.sql} method that returns such an object.
 */
final class Wrappers {
    private Wrappers() {
    }

    static FencedConnectionImpl connection(Connection raw, Settings settings, SqlAnalyzer analyzer,
                                           EpochSchema.Tables tables) throws SQLException {
        return new FencedConnectionImpl(raw, settings, analyzer, tables);
    }

    static Statement statement(FencedConnectionImpl connection, Statement raw) {
        return new FencedStatement(connection, raw);
    }

    /** A prepared statement, whose underlying statements {@code preparer} makes from the SQL text of each form. */
    static PreparedStatement prepared(FencedConnectionImpl connection, String sql, Analysis analysis,
                                      boolean keysRequested, FencedPreparedStatement.Preparer preparer)
            throws SQLException {
        return new FencedPreparedStatement(connection, sql, analysis, keysRequested, preparer);
    }

    static CallableStatement callable(FencedConnectionImpl connection, String sql, Analysis analysis,
                                      CallableStatement raw) throws SQLException {
        return new FencedCallableStatement(connection, sql, analysis, raw);
    }

    static FencedDatabaseMetaData metaData(FencedConnectionImpl connection, DatabaseMetaData raw) {
        return new FencedDatabaseMetaData(connection, raw);
    }

    /**
     * A result set whose {@code getStatement()} answers {@code owner} ({@code null} for metadata and values);
     * {@code null} stays {@code null} and a fenced one stays as it is.
     */
    static ResultSet resultSet(FencedConnectionImpl connection, Statement owner, ResultSet raw) {
        return raw == null || raw instanceof FencedResultSet ? raw : new FencedResultSet(connection, owner, raw);
    }

    /** An array, whose result sets come back fenced; {@code null} stays {@code null}, a fenced one as it is. */
    static Array array(FencedConnectionImpl connection, Array raw) {
        return raw == null || raw instanceof FencedArray ? raw : new FencedArray(connection, raw);
    }
}
