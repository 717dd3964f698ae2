package dev.fencing.jdbc.wrapper;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The fencing connection's {@link DatabaseMetaData}: {@code getConnection()} answers the fenced connection and
 * every result set it returns is wrapped, so metadata never leads back to the raw connection.
 */
final class FencedDatabaseMetaData extends PassThroughDatabaseMetaData {
    private final FencedConnectionImpl connection;
    private final DatabaseMetaData delegate;

    FencedDatabaseMetaData(FencedConnectionImpl connection, DatabaseMetaData delegate) {
        this.connection = connection;
        this.delegate = delegate;
    }

    @Override
    DatabaseMetaData delegate() {
        return delegate;
    }

    private ResultSet wrap(ResultSet rs) {
        return Wrappers.resultSet(connection, null, rs);
    }

    @Override
    public Connection getConnection() {
        return connection;
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return connection.unwrap(this, delegate, type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }

    @Override
    public ResultSet getAttributes(String p1, String p2, String p3, String p4) throws SQLException {
        return wrap(delegate.getAttributes(p1, p2, p3, p4));
    }

    @Override
    public ResultSet getBestRowIdentifier(String p1, String p2, String p3, int p4, boolean p5) throws SQLException {
        return wrap(delegate.getBestRowIdentifier(p1, p2, p3, p4, p5));
    }

    @Override
    public ResultSet getCatalogs() throws SQLException {
        return wrap(delegate.getCatalogs());
    }

    @Override
    public ResultSet getClientInfoProperties() throws SQLException {
        return wrap(delegate.getClientInfoProperties());
    }

    @Override
    public ResultSet getColumnPrivileges(String p1, String p2, String p3, String p4) throws SQLException {
        return wrap(delegate.getColumnPrivileges(p1, p2, p3, p4));
    }

    @Override
    public ResultSet getColumns(String p1, String p2, String p3, String p4) throws SQLException {
        return wrap(delegate.getColumns(p1, p2, p3, p4));
    }

    @Override
    public ResultSet getCrossReference(String p1, String p2, String p3, String p4, String p5, String p6) throws SQLException {
        return wrap(delegate.getCrossReference(p1, p2, p3, p4, p5, p6));
    }

    @Override
    public ResultSet getExportedKeys(String p1, String p2, String p3) throws SQLException {
        return wrap(delegate.getExportedKeys(p1, p2, p3));
    }

    @Override
    public ResultSet getFunctionColumns(String p1, String p2, String p3, String p4) throws SQLException {
        return wrap(delegate.getFunctionColumns(p1, p2, p3, p4));
    }

    @Override
    public ResultSet getFunctions(String p1, String p2, String p3) throws SQLException {
        return wrap(delegate.getFunctions(p1, p2, p3));
    }

    @Override
    public ResultSet getImportedKeys(String p1, String p2, String p3) throws SQLException {
        return wrap(delegate.getImportedKeys(p1, p2, p3));
    }

    @Override
    public ResultSet getIndexInfo(String p1, String p2, String p3, boolean p4, boolean p5) throws SQLException {
        return wrap(delegate.getIndexInfo(p1, p2, p3, p4, p5));
    }

    @Override
    public ResultSet getPrimaryKeys(String p1, String p2, String p3) throws SQLException {
        return wrap(delegate.getPrimaryKeys(p1, p2, p3));
    }

    @Override
    public ResultSet getProcedureColumns(String p1, String p2, String p3, String p4) throws SQLException {
        return wrap(delegate.getProcedureColumns(p1, p2, p3, p4));
    }

    @Override
    public ResultSet getProcedures(String p1, String p2, String p3) throws SQLException {
        return wrap(delegate.getProcedures(p1, p2, p3));
    }

    @Override
    public ResultSet getPseudoColumns(String p1, String p2, String p3, String p4) throws SQLException {
        return wrap(delegate.getPseudoColumns(p1, p2, p3, p4));
    }

    @Override
    public ResultSet getSchemas() throws SQLException {
        return wrap(delegate.getSchemas());
    }

    @Override
    public ResultSet getSchemas(String p1, String p2) throws SQLException {
        return wrap(delegate.getSchemas(p1, p2));
    }

    @Override
    public ResultSet getSuperTables(String p1, String p2, String p3) throws SQLException {
        return wrap(delegate.getSuperTables(p1, p2, p3));
    }

    @Override
    public ResultSet getSuperTypes(String p1, String p2, String p3) throws SQLException {
        return wrap(delegate.getSuperTypes(p1, p2, p3));
    }

    @Override
    public ResultSet getTablePrivileges(String p1, String p2, String p3) throws SQLException {
        return wrap(delegate.getTablePrivileges(p1, p2, p3));
    }

    @Override
    public ResultSet getTableTypes() throws SQLException {
        return wrap(delegate.getTableTypes());
    }

    @Override
    public ResultSet getTables(String p1, String p2, String p3, String[] p4) throws SQLException {
        return wrap(delegate.getTables(p1, p2, p3, p4));
    }

    @Override
    public ResultSet getTypeInfo() throws SQLException {
        return wrap(delegate.getTypeInfo());
    }

    @Override
    public ResultSet getUDTs(String p1, String p2, String p3, int[] p4) throws SQLException {
        return wrap(delegate.getUDTs(p1, p2, p3, p4));
    }

    @Override
    public ResultSet getVersionColumns(String p1, String p2, String p3) throws SQLException {
        return wrap(delegate.getVersionColumns(p1, p2, p3));
    }
}
