package dev.fencing.jdbc.wrapper;

import dev.fencing.jdbc.audit.SqlStates;

import dev.fencing.jdbc.config.Settings;
import dev.fencing.jdbc.FencingDriver;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Enumeration;
import java.util.Locale;
import java.util.Map;
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
                    SqlStates.CANNOT_CONNECT);
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
        throw new SQLException("fencing: no JDBC driver on the class path accepts " + redact(targetUrl) + ": "
                + driverToAdd(targetUrl), SqlStates.CANNOT_CONNECT);
    }

    /** The driver artifacts of the databases the project knows, by the URL scheme after {@code jdbc:}. */
    private static final Map<String, String> DRIVERS = Map.of(
            "postgresql", "org.postgresql:postgresql",
            "h2", "com.h2database:h2",
            "mariadb", "org.mariadb.jdbc:mariadb-java-client",
            "mysql", "com.mysql:mysql-connector-j");

    /** What to add to the class path for {@code targetUrl}'s scheme. */
    static String driverToAdd(String targetUrl) {
        String rest = targetUrl.substring("jdbc:".length());
        int colon = rest.indexOf(':');
        String scheme = (colon < 0 ? rest : rest.substring(0, colon)).toLowerCase(Locale.ROOT);
        String artifact = DRIVERS.get(scheme);
        return artifact != null ? "add the " + scheme + " driver, " + artifact + ", to the class path"
                : "add the JDBC driver for 'jdbc:" + scheme + ":' URLs to the class path";
    }

    private static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
