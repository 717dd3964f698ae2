package dev.fencing.jdbc.cli;

import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.issuer.TokenIssuer;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;

/**
 * Where the database is: options first, then the environment ({@code FENCING_JDBC_URL}, {@code FENCING_JDBC_USER},
 * {@code FENCING_JDBC_PASSWORD}, {@code FENCING_CONFIG}), then a properties file ({@code url}, {@code user},
 * {@code password}, {@code fencing.table}, {@code fencing.lease.table}, other keys go to the JDBC driver).
 */
final class ConnectionOptions {
    static final String URL_ENV = "FENCING_JDBC_URL";
    static final String USER_ENV = "FENCING_JDBC_USER";
    static final String PASSWORD_ENV = "FENCING_JDBC_PASSWORD";
    static final String CONFIG_ENV = "FENCING_CONFIG";

    @Option(names = "--url", paramLabel = "JDBC_URL",
            description = "The database: the underlying driver's JDBC URL or the application's jdbc:fencing: URL."
                    + " Default: $" + URL_ENV + ", then 'url' in the config file.")
    String url;

    @Option(names = "--user", description = "Database user. Default: $" + USER_ENV + ", then 'user' in the config"
            + " file. The password comes from $" + PASSWORD_ENV + " or 'password' in the config file.")
    String user;

    @Option(names = "--config", paramLabel = "FILE",
            description = "A properties file with url, user, password, fencing.table, fencing.lease.table and"
                    + " driver properties. Default: $" + CONFIG_ENV + ".")
    Path config;

    @Option(names = "--epoch-table", paramLabel = "NAME",
            description = "The epoch table (table or schema.table). Default: fencing_epoch.")
    String epochTable;

    @Option(names = "--lease-table", paramLabel = "NAME",
            description = "The lease table (table or schema.table). Default: fencing_lease.")
    String leaseTable;

    /** The database these options name: a JDBC URL and the properties for it. */
    record Target(String url, Properties info) {
        /** The URL through the fencing driver ({@code jdbc:fencing:...}), whichever of the two was given. */
        String fencedUrl() {
            return url.regionMatches(true, 0, "jdbc:fencing:", 0, 13) ? url : "jdbc:fencing:" + url.substring(5);
        }
    }

    /** A token issuer for the database these options name, or a usage error saying what is missing. */
    TokenIssuer issuer() throws SQLException {
        Target target = target();
        return TokenIssuer.forUrl(target.url(), target.info());
    }

    /** The JDBC URL and properties these options name, or a usage error saying what is missing. */
    Target target() {
        Map<String, String> env = System.getenv();
        Properties file = new Properties();
        Path configFile = config != null ? config : env.containsKey(CONFIG_ENV) ? Path.of(env.get(CONFIG_ENV)) : null;
        if (configFile != null) {
            try (Reader reader = Files.newBufferedReader(configFile)) {
                file.load(reader);
            } catch (IOException e) {
                throw new CliException(Exit.USAGE, "cannot read config file " + configFile + ": " + e.getMessage());
            }
        }
        String jdbcUrl = first(url, env.get(URL_ENV), file.getProperty("url"));
        if (jdbcUrl == null) {
            throw new CliException(Exit.USAGE, "no database: give --url, set $" + URL_ENV + ", or name a config"
                    + " file with a 'url' (--config or $" + CONFIG_ENV + ")");
        }
        Properties info = new Properties();
        for (String name : file.stringPropertyNames()) {
            if (!name.equals("url")) {
                info.setProperty(name, file.getProperty(name));
            }
        }
        put(info, "user", first(user, env.get(USER_ENV), file.getProperty("user")));
        put(info, "password", first(env.get(PASSWORD_ENV), file.getProperty("password")));
        put(info, FencingProperty.TABLE.getName(), epochTable);
        put(info, FencingProperty.LEASE_TABLE.getName(), leaseTable);
        if (!jdbcUrl.regionMatches(true, 0, "jdbc:", 0, 5)) {
            throw new CliException(Exit.USAGE, "not a JDBC URL: " + jdbcUrl + " (for example"
                    + " jdbc:postgresql://db/app or jdbc:fencing:postgresql://db/app)");
        }
        return new Target(jdbcUrl, info);
    }

    private static void put(Properties info, String name, String value) {
        if (value != null) {
            info.setProperty(name, value);
        }
    }

    private static String first(String... values) {
        for (String value : values) {
            if (value != null && !value.isBlank()) {
                return value.trim();
            }
        }
        return null;
    }
}
