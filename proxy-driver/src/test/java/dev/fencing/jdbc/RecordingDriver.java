package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/** A test driver for {@code jdbc:recording:<h2 url>} that records what it was given and delegates to H2. */
final class RecordingDriver implements Driver {
    static volatile String lastUrl;
    static volatile Properties lastProperties;
    private static boolean registered;

    static synchronized void register() throws SQLException {
        if (!registered) {
            DriverManager.registerDriver(new RecordingDriver());
            registered = true;
        }
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        lastUrl = url;
        lastProperties = (Properties) info.clone();
        return new org.h2.Driver().connect("jdbc:h2:" + url.substring("jdbc:recording:".length()), info);
    }

    @Override
    public boolean acceptsURL(String url) {
        return url.startsWith("jdbc:recording:");
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }
}
