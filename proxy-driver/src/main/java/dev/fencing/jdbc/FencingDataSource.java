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
 */
public class FencingDataSource implements DataSource {
    private final FencingDriver driver = new FencingDriver();
    private final Properties properties = new Properties();
    private String url;
    private int loginTimeout;
    private PrintWriter logWriter;

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public void setUser(String user) {
        properties.setProperty("user", user);
    }

    public String getUser() {
        return properties.getProperty("user");
    }

    public void setPassword(String password) {
        properties.setProperty("password", password);
    }

    /** Sets {@code fencing.resource}. */
    public void setResource(String resource) {
        properties.setProperty("fencing.resource", resource);
    }

    /** Sets {@code fencing.token}. */
    public void setToken(String token) {
        properties.setProperty("fencing.token", token);
    }

    /** Sets any driver property, {@code fencing.*} or the underlying driver's. */
    public void setProperty(String name, String value) {
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

    private Connection connect(Properties info) throws SQLException {
        if (url == null || !driver.acceptsURL(url)) {
            throw new SQLException("fencing: FencingDataSource needs a url starting with jdbc:fencing:, was " + url,
                    FencingSqlState.CONFIGURATION);
        }
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
