package dev.fencing.jdbc;

import dev.fencing.jdbc.wrapper.FencedConnectionImpl;
import dev.fencing.jdbc.config.Settings;
import dev.fencing.jdbc.audit.SqlStates;
import dev.fencing.jdbc.wrapper.Unfenced;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Map;
import java.util.Properties;
import dev.fencing.sql.ReadOnlySql;
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
        Settings.Target to = settings.mode() == FencingMode.ENFORCE && settings.targetUrl().startsWith("jdbc:postgresql:")
                ? settings.withPostgresOption(ReadOnlySql.POSTGRES_STARTUP_OPTION)
                : new Settings.Target(settings.targetUrl(), settings.targetProperties());
        Connection raw = target.connect(to.url(), to.properties());
        if (raw == null) {
            throw new SQLException("fencing: the driver for " + settings.targetUrl() + " refused the URL",
                    SqlStates.CANNOT_CONNECT);
        }
        return FencedConnectionImpl.open(raw, settings);
    }

    @Override
    public boolean acceptsURL(String url) {
        return Settings.accepts(url);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        Map<String, String> given = Settings.given(url, info);
        FencingProperty[] settings = FencingProperty.values();
        DriverPropertyInfo[] out = new DriverPropertyInfo[settings.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = settings[i].toDriverPropertyInfo(given.get(settings[i].getName()));
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
