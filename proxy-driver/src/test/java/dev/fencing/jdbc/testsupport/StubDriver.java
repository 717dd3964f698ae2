package dev.fencing.jdbc.testsupport;

import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The driver of {@code jdbc:stub:<database>} URLs ({@code postgresql}, {@code h2} or {@code mariadb}): quiet
 * {@link StubConnection}s to no database that describe themselves as that database, so the fencing driver over
 * them takes its paths for it. Registered only on request ({@link #register()}).
 */
public final class StubDriver extends TestDriver {
    /** A stub that describes itself as PostgreSQL. */
    public static final String URL = "jdbc:stub:postgresql";
    private static final String PREFIX = "jdbc:stub:";
    private static final Map<String, String> PRODUCTS = Map.of("postgresql", "PostgreSQL", "h2", "H2",
            "mariadb", "MariaDB");

    /** Registers the stub driver once with {@link java.sql.DriverManager}. */
    public static void register() throws SQLException {
        registerOnce(new StubDriver());
    }

    @Override
    public StubConnection connect(String url, Properties info) {
        return acceptsURL(url) ? StubConnection.quiet(PRODUCTS.get(database(url))) : null;
    }

    private static String database(String url) {
        String rest = url.substring(PREFIX.length()).toLowerCase(Locale.ROOT);
        int end = rest.indexOf(':');
        return end < 0 ? rest : rest.substring(0, end);
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith(PREFIX) && PRODUCTS.containsKey(database(url));
    }
}
