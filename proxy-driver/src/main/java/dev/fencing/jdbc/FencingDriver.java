package dev.fencing.jdbc;

import dev.fencing.jdbc.internal.FencedConnectionImpl;
import dev.fencing.jdbc.internal.Settings;
import dev.fencing.jdbc.internal.Unfenced;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The {@code jdbc:fencing:} driver. {@code jdbc:fencing:<rest>} connects through whichever registered driver
 * accepts {@code jdbc:<rest>}, after removing the {@code fencing.*} settings from the URL and properties, and
 * hands out a connection that fences every mutation.
 */
public final class FencingDriver implements Driver {
    static {
        try {
            DriverManager.registerDriver(new FencingDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        Settings settings = Settings.parse(url, info);
        Driver target = Unfenced.targetDriver(settings.targetUrl());
        Connection raw = target.connect(settings.targetUrl(), settings.targetProperties());
        if (raw == null) {
            throw new SQLException("fencing: the driver for " + settings.targetUrl() + " refused the URL", "08001");
        }
        return FencedConnectionImpl.open(raw, settings);
    }

    @Override
    public boolean acceptsURL(String url) {
        return Settings.accepts(url);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
        String[][] settings = {
            {Settings.RESOURCE, "resource the connection's mutations are fenced for (default: " + Settings.DEFAULT_RESOURCE + ")"},
            {Settings.TOKEN, "fencing token (positive integer)"},
            {Settings.TOKEN_FILE, "file holding the token, re-read when it changes"},
            {Settings.TOKEN_ENV, "environment variable holding the token (default " + Settings.DEFAULT_TOKEN_ENV + ")"},
            {Settings.RESOURCE_ENV, "environment variable holding the resource (default " + Settings.DEFAULT_RESOURCE_ENV + ")"},
            {Settings.TOKEN_SOURCE, "class implementing dev.fencing.jdbc.TokenSource"},
            {Settings.TABLE, "epoch table (default " + Settings.DEFAULT_TABLE + ")"},
            {Settings.SCHEMA, "validate (default) or create the epoch table at connect"},
            {Settings.UNWRAP, "deny (default) or allow unwrapping to the underlying driver's objects"},
            {Settings.EXEMPT, "comma-separated plain tables (table or schema.table, resolved as the database"
                    + " resolves them) whose INSERT/UPDATE/DELETE/MERGE/COPY FROM need no token (e.g. an audit log)"},
            {Settings.CACHE_SIZE, "analysed statements kept per database (default " + Settings.DEFAULT_CACHE_SIZE + ")"},
        };
        DriverPropertyInfo[] out = new DriverPropertyInfo[settings.length];
        for (int i = 0; i < settings.length; i++) {
            out[i] = new DriverPropertyInfo(settings[i][0], info == null ? null : info.getProperty(settings[i][0]));
            out[i].description = settings[i][1];
        }
        return out;
    }

    @Override
    public int getMajorVersion() {
        return 0;
    }

    @Override
    public int getMinorVersion() {
        return 1;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("fencing driver does not use java.util.logging");
    }
}
