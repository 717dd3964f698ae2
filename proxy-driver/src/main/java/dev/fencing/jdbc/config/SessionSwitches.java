package dev.fencing.jdbc.config;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * Refuses MariaDB Connector/J and MySQL Connector/J modes that replace the server session under an open connection
 * (SPEC C10): high-availability URLs ({@code jdbc:mariadb:sequential:}, {@code loadbalance:}, {@code replication:},
 * {@code jdbc:mysql:loadbalance:}, {@code replication:}, {@code jdbc:mysql+srv:}), several hosts, and
 * {@code autoReconnect}, {@code autoReconnectForPools} or {@code transactionReplay}. The fence makes each server
 * session read-only when it opens the connection; a session the connector opens later, after a failure or to
 * balance load, would be read-write with no token (found by review: a killed session, then a hidden write
 * through a view landed with every one of these).
 */
final class SessionSwitches {
    /** Properties that make the connector reconnect or replay on a new session (compared case-insensitively). */
    private static final Set<String> RECONNECTS = Set.of("autoreconnect", "autoreconnectforpools", "transactionreplay");
    /**
     * MySQL Connector/J settings that set other settings from elsewhere, which the fence cannot check: bundled or
     * class-path configuration files ({@code useConfigs=clusterBase} turns {@code autoReconnect} on, found by review)
     * and a class that rewrites the properties.
     */
    private static final Set<String> INDIRECT = Set.of("useconfigs", "propertiestransform");

    private SessionSwitches() {
    }

    /** Throws {@code ZF006} naming the first such mode, host list or property in {@code targetUrl} or {@code target}. */
    static void refuse(String targetUrl, Properties target) throws SQLException {
        String url = targetUrl.toLowerCase(Locale.ROOT);
        String rest;
        if (url.startsWith("jdbc:mariadb:")) {
            rest = url.substring("jdbc:mariadb:".length());
        } else if (url.startsWith("jdbc:mysql+srv:")) {
            throw refusal("jdbc:mysql+srv: (hosts from DNS SRV records, with fail-over)");
        } else if (url.startsWith("jdbc:mysql:")) {
            rest = url.substring("jdbc:mysql:".length());
        } else {
            return;
        }
        int slashes = rest.indexOf("//");
        if (slashes > 0) { // a sub-protocol: sequential:, loadbalance:, replication:, ...
            String mode = rest.substring(0, slashes);
            throw refusal("the connector mode " + mode.replace(":", "") + ":");
        }
        String authority = slashes < 0 ? "" : rest.substring(slashes + 2);
        int end = authority.length();
        for (char stop : new char[] {'/', '?'}) {
            int at = authority.indexOf(stop);
            if (at >= 0 && at < end && !inParentheses(authority, at)) {
                end = at;
            }
        }
        authority = authority.substring(0, end);
        if (authority.indexOf(',') >= 0 || authority.indexOf("address=", authority.indexOf("address=") + 1) >= 0) {
            throw refusal("several hosts (" + authority + ")");
        }
        for (String name : target.stringPropertyNames()) {
            check(name, target.getProperty(name));
        }
        String decoded;
        try {
            decoded = URLDecoder.decode(targetUrl.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            decoded = targetUrl;
        }
        // query parameters, and MySQL's (key=value) pairs inside address=(...)
        for (String pair : decoded.split("[?&()]")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                check(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
            }
        }
    }

    private static boolean inParentheses(String text, int index) {
        int depth = 0;
        for (int i = 0; i < index; i++) {
            depth += text.charAt(i) == '(' ? 1 : text.charAt(i) == ')' ? -1 : 0;
        }
        return depth > 0;
    }

    private static void check(String name, String value) throws SQLException {
        if (INDIRECT.contains(name.toLowerCase(Locale.ROOT))) {
            throw Settings.configuration("the setting " + name + "=" + value + " sets other connector settings from"
                    + " elsewhere (a configuration file, a class), which the fence cannot check: bundled ones turn on"
                    + " reconnects (clusterBase: autoReconnect), which would open server sessions the fence never made"
                    + " read-only. Give the settings themselves instead");
        }
        if (RECONNECTS.contains(name.toLowerCase(Locale.ROOT)) && !value.equalsIgnoreCase("false")
                && !value.equalsIgnoreCase("no") && !value.equals("0")) {
            throw refusal("the setting " + name + "=" + value);
        }
    }

    private static SQLException refusal(String what) {
        return Settings.configuration(what + " lets the underlying driver open a new server session under an open"
                + " connection; the fence makes each session read-only when it connects and would not see the new one,"
                + " which would then take writes hidden from the driver without a token: connect to one host without"
                + " reconnecting, and let the pool replace broken connections");
    }
}
