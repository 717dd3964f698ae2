package dev.fencing.jdbc.internal;

import dev.fencing.jdbc.FencingDriver;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Enumeration;
import java.util.Properties;

/**
 * The administrative bypass, for the project's own tooling only (the issuer and its command line): opens the
 * underlying database connection that a {@code jdbc:fencing:} URL names, without any fence, so the tool can
 * write the epoch and lease tables. No URL parameter or driver property reaches it: fencing is only ever turned
 * off by code that calls this class on purpose.
 */
public final class Unfenced {
    private Unfenced() {
    }

    /**
     * Connects to the database behind {@code fencingUrl} with the underlying driver; the {@code fencing.*}
     * settings are validated and removed, as for a fenced connection.
     */
    public static Connection connect(String fencingUrl, Properties info) throws SQLException {
        if (!Settings.accepts(fencingUrl)) {
            throw Settings.configuration("not a " + Settings.PREFIX + " URL: " + redact(String.valueOf(fencingUrl)));
        }
        Settings settings = Settings.parse(fencingUrl, info);
        Connection raw = targetDriver(settings.targetUrl()).connect(settings.targetUrl(), settings.targetProperties());
        if (raw == null) {
            throw new SQLException("fencing: the driver for " + redact(settings.targetUrl()) + " refused the URL",
                    "08001");
        }
        return raw;
    }

    /** The registered driver, other than the fencing driver, that accepts {@code targetUrl}. */
    public static Driver targetDriver(String targetUrl) throws SQLException {
        Enumeration<Driver> drivers = DriverManager.getDrivers();
        while (drivers.hasMoreElements()) {
            Driver driver = drivers.nextElement();
            if (!(driver instanceof FencingDriver) && driver.acceptsURL(targetUrl)) {
                return driver;
            }
        }
        throw new SQLException("fencing: no JDBC driver on the class path accepts " + redact(targetUrl)
                + " (add the database's driver, e.g. org.postgresql:postgresql or com.h2database:h2)", "08001");
    }

    private static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
