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
 * {@code password}, {@code resource}, {@code token} or any other property with {@link #setProperty}.
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

    /** Sets {@code fencing.resource}. */
    public void setResource(String resource) {
        requireUnconnected("fencing.resource");
        properties.setProperty("fencing.resource", resource);
    }

    /** Sets {@code fencing.token}. */
    public void setToken(String token) {
        requireUnconnected("fencing.token");
        properties.setProperty("fencing.token", token);
    }

    /** Sets any driver property, {@code fencing.*} or the underlying driver's. */
    public void setProperty(String name, String value) {
        requireUnconnected(name);
        properties.setProperty(name, value);
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
