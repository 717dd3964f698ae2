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
        boolean enforce = settings.mode() == FencingMode.ENFORCE;
        Settings.Target to;
        if (enforce && settings.targetUrl().startsWith("jdbc:postgresql:")) {
            to = settings.withPostgresOption(ReadOnlySql.POSTGRES_STARTUP_OPTION);
        } else if (enforce && settings.targetUrl().startsWith("jdbc:mysql:")) {
            // The fence keeps the session read-only for un-admitted work and admits writes in read-write
            // transactions. MySQL Connector/J, against a server it takes for MySQL 5.6.5 or later (MariaDB 11 and
            // later no longer report "5.5.5-..."), asks the server before Statement.execute and executeBatch whether
            // the session is read-only and then refuses an admitted write itself (S1009); with this setting it
            // keeps to its own flag, which the fence never sets (setReadOnly is the fence's), and the server judges.
            // A property given to connect overrides the URL's (Connector/J).
            to = settings.withProperty("readOnlyPropagatesToServer", "false");
        } else {
            to = new Settings.Target(settings.targetUrl(), settings.targetProperties());
        }
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
