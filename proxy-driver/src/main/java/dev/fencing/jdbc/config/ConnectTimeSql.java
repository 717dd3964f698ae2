package dev.fencing.jdbc.config;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * Refuses settings of the underlying driver that make it run SQL of its own while it connects, before the fence is
 * in place (SPEC C10): H2's {@code INIT}, MariaDB Connector/J's {@code initSql}, and {@code sessionVariables} of
 * MariaDB and MySQL Connector/J (whose values are SQL expressions, which may call functions). Nothing the fence
 * checks would run them.
 */
final class ConnectTimeSql {
    /** H2's URL and property names are case-insensitive. */
    private static final Set<String> H2 = Set.of("init");
    /** Compared case-insensitively: a misspelt name the driver would ignore is refused too, which costs nothing. */
    private static final Set<String> MYSQL_FAMILY = Set.of("initsql", "sessionvariables");

    private ConnectTimeSql() {
    }

    /** Throws {@code ZF006} naming the first such setting in {@code targetUrl} or {@code target}. */
    static void refuse(String targetUrl, Properties target) throws SQLException {
        String url = targetUrl.toLowerCase(Locale.ROOT);
        boolean h2 = url.startsWith("jdbc:h2:");
        boolean mysqlFamily = url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql");
        if (!h2 && !mysqlFamily) {
            return;
        }
        Set<String> names = h2 ? H2 : MYSQL_FAMILY;
        for (String name : target.stringPropertyNames()) {
            check(names, name);
        }
        if (h2) {
            String[] segments = targetUrl.split(";", -1);
            for (int i = 1; i < segments.length; i++) {
                int eq = segments[i].indexOf('=');
                check(names, (eq < 0 ? segments[i] : segments[i].substring(0, eq)).trim());
            }
            return;
        }
        // MySQL Connector/J also takes properties inside the host part (address=(host=...)(sessionVariables=...)):
        // the name anywhere in the URL is enough.
        String decoded;
        try {
            decoded = URLDecoder.decode(targetUrl.replace("+", "%2B"), StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException malformed) {
            decoded = url;
        }
        for (String name : names) {
            if (decoded.contains(name)) {
                check(names, name);
            }
        }
    }

    private static void check(Set<String> names, String name) throws SQLException {
        if (names.contains(name.toLowerCase(Locale.ROOT))) {
            throw Settings.configuration("the underlying driver's setting " + name + " runs SQL while it connects,"
                    + " before the fence is in place, where no token is checked: remove it, and send those statements"
                    + " through the fenced connection once it is open (SET and the like pass there; a write needs a"
                    + " token like any other)");
        }
    }
}
