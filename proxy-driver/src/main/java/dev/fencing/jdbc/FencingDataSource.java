package dev.fencing.jdbc;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} over the fencing driver, for pools and frameworks configured by class name (HikariCP's
 * {@code dataSourceClassName}): set {@code url} to a {@code jdbc:fencing:} URL, and optionally {@code user},
 * {@code password}, any {@link FencingProperty} by its bean name ({@code resource}, {@code token},
 * {@code tokenFile}, {@code mode}, ...) or any other property with {@link #setProperty}.
 *
 * <p>The settings are fixed once the data source has handed out its first connection: a pool keeps connections
 * open with the settings they were opened with, so a later change (say {@code fencing.mode} from {@code audit} to
 * {@code enforce}) would reach only some of them. Changing one then throws {@link IllegalStateException}; build a
 * new data source (and pool) instead.
 */
public class FencingDataSource implements DataSource {
    private final FencingDriver driver = new FencingDriver();
    private final Properties properties = new Properties();
    private String url;
    private int loginTimeout;
    private PrintWriter logWriter;
    /** Whether a connection was handed out: settings are fixed from then on. */
    private volatile boolean connected;

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        requireUnconnected("url");
        this.url = url;
    }

    public void setUser(String user) {
        requireUnconnected("user");
        properties.setProperty("user", user);
    }

    public String getUser() {
        return properties.getProperty("user");
    }

    public void setPassword(String password) {
        requireUnconnected("password");
        properties.setProperty("password", password);
    }

    // One setter and getter per FencingProperty (bean names for pools configured by property name, such as
    // HikariCP's dataSource.tokenFile); FencingDataSourceTest checks there is one for every setting.

    /** {@link FencingProperty#RESOURCE}. */
    public void setResource(String value) {
        set(FencingProperty.RESOURCE, value);
    }

    /** {@link FencingProperty#RESOURCE}, or {@code null} when not set here. */
    public String getResource() {
        return FencingProperty.RESOURCE.get(properties);
    }

    /** {@link FencingProperty#TOKEN}. */
    public void setToken(String value) {
        set(FencingProperty.TOKEN, value);
    }

    /** {@link FencingProperty#TOKEN}, or {@code null} when not set here. */
    public String getToken() {
        return FencingProperty.TOKEN.get(properties);
    }

    /** {@link FencingProperty#TOKEN_FILE}. */
    public void setTokenFile(String value) {
        set(FencingProperty.TOKEN_FILE, value);
    }

    /** {@link FencingProperty#TOKEN_FILE}, or {@code null} when not set here. */
    public String getTokenFile() {
        return FencingProperty.TOKEN_FILE.get(properties);
    }

    /** {@link FencingProperty#TOKEN_ENV}. */
    public void setTokenEnv(String value) {
        set(FencingProperty.TOKEN_ENV, value);
    }

    /** {@link FencingProperty#TOKEN_ENV}, or {@code null} when not set here. */
    public String getTokenEnv() {
        return FencingProperty.TOKEN_ENV.get(properties);
    }

    /** {@link FencingProperty#RESOURCE_ENV}. */
    public void setResourceEnv(String value) {
        set(FencingProperty.RESOURCE_ENV, value);
    }

    /** {@link FencingProperty#RESOURCE_ENV}, or {@code null} when not set here. */
    public String getResourceEnv() {
        return FencingProperty.RESOURCE_ENV.get(properties);
    }

    /** {@link FencingProperty#TOKEN_SOURCE}. */
    public void setTokenSource(String value) {
        set(FencingProperty.TOKEN_SOURCE, value);
    }

    /** {@link FencingProperty#TOKEN_SOURCE}, or {@code null} when not set here. */
    public String getTokenSource() {
        return FencingProperty.TOKEN_SOURCE.get(properties);
    }

    /** {@link FencingProperty#TABLE}. */
    public void setTable(String value) {
        set(FencingProperty.TABLE, value);
    }

    /** {@link FencingProperty#TABLE}, or {@code null} when not set here. */
    public String getTable() {
        return FencingProperty.TABLE.get(properties);
    }

    /** {@link FencingProperty#SCHEMA}. */
    public void setSchema(String value) {
        set(FencingProperty.SCHEMA, value);
    }

    /** {@link FencingProperty#SCHEMA}, or {@code null} when not set here. */
    public String getSchema() {
        return FencingProperty.SCHEMA.get(properties);
    }

    /** {@link FencingProperty#UNWRAP}. */
    public void setUnwrap(String value) {
        set(FencingProperty.UNWRAP, value);
    }

    /** {@link FencingProperty#UNWRAP}, or {@code null} when not set here. */
    public String getUnwrap() {
        return FencingProperty.UNWRAP.get(properties);
    }

    /** {@link FencingProperty#CACHE_SIZE}. */
    public void setCacheSize(String value) {
        set(FencingProperty.CACHE_SIZE, value);
    }

    /** {@link FencingProperty#CACHE_SIZE}, or {@code null} when not set here. */
    public String getCacheSize() {
        return FencingProperty.CACHE_SIZE.get(properties);
    }

    /** {@link FencingProperty#LEASE_TABLE}. */
    public void setLeaseTable(String value) {
        set(FencingProperty.LEASE_TABLE, value);
    }

    /** {@link FencingProperty#LEASE_TABLE}, or {@code null} when not set here. */
    public String getLeaseTable() {
        return FencingProperty.LEASE_TABLE.get(properties);
    }

    /** {@link FencingProperty#RESOURCES}. */
    public void setResources(String value) {
        set(FencingProperty.RESOURCES, value);
    }

    /** {@link FencingProperty#RESOURCES}, or {@code null} when not set here. */
    public String getResources() {
        return FencingProperty.RESOURCES.get(properties);
    }

    /** {@link FencingProperty#ISSUER_CHECK}. */
    public void setIssuerCheck(String value) {
        set(FencingProperty.ISSUER_CHECK, value);
    }

    /** {@link FencingProperty#ISSUER_CHECK}, or {@code null} when not set here. */
    public String getIssuerCheck() {
        return FencingProperty.ISSUER_CHECK.get(properties);
    }

    /** {@link FencingProperty#GUARD}. */
    public void setGuard(String value) {
        set(FencingProperty.GUARD, value);
    }

    /** {@link FencingProperty#GUARD}, or {@code null} when not set here. */
    public String getGuard() {
        return FencingProperty.GUARD.get(properties);
    }

    /** {@link FencingProperty#MODE}. */
    public void setMode(String value) {
        set(FencingProperty.MODE, value);
    }

    /** {@link FencingProperty#MODE}, or {@code null} when not set here. */
    public String getMode() {
        return FencingProperty.MODE.get(properties);
    }

    /** {@link FencingProperty#AUDIT_FILE}. */
    public void setAuditFile(String value) {
        set(FencingProperty.AUDIT_FILE, value);
    }

    /** {@link FencingProperty#AUDIT_FILE}, or {@code null} when not set here. */
    public String getAuditFile() {
        return FencingProperty.AUDIT_FILE.get(properties);
    }

    /** {@link FencingProperty#EXEMPT}. */
    public void setExempt(String value) {
        set(FencingProperty.EXEMPT, value);
    }

    /** {@link FencingProperty#EXEMPT}, or {@code null} when not set here. */
    public String getExempt() {
        return FencingProperty.EXEMPT.get(properties);
    }

    /** Sets {@code property}; {@code null} removes it. */
    public void set(FencingProperty property, String value) {
        requireUnconnected(property.getName());
        property.set(properties, value);
    }

    /** Sets any driver property, {@code fencing.*} or the underlying driver's. */
    public void setProperty(String name, String value) {
        requireUnconnected(name);
        properties.setProperty(name, value);
    }

    /** A driver property set here, or {@code null}. */
    public String getProperty(String name) {
        return properties.getProperty(name);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return connect(properties);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        Properties withUser = new Properties();
        withUser.putAll(properties);
        if (username != null) {
            withUser.setProperty("user", username);
        }
        if (password != null) {
            withUser.setProperty("password", password);
        }
        return connect(withUser);
    }

    private void requireUnconnected(String setting) {
        if (connected) {
            throw new IllegalStateException("fencing: FencingDataSource cannot change '" + setting + "' after it has"
                    + " handed out a connection: connections already open (in a pool, say) would keep the old"
                    + " settings; create a new data source (and pool) with the new settings");
        }
    }

    private Connection connect(Properties info) throws SQLException {
        if (url == null || !driver.acceptsURL(url)) {
            throw new SQLException("fencing: FencingDataSource needs a url starting with jdbc:fencing:, was " + url,
                    FencingSqlState.CONFIGURATION);
        }
        connected = true;
        return driver.connect(url, info);
    }

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        this.logWriter = out;
    }

    @Override
    public void setLoginTimeout(int seconds) {
        this.loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeout;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("fencing driver does not use java.util.logging");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("fencing: FencingDataSource does not wrap " + type.getName(), FencingSqlState.PROTECTED);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
