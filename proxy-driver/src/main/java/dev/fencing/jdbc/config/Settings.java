package dev.fencing.jdbc.config;

import dev.fencing.jdbc.FencingMode;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.ResourceName;

import java.net.URLDecoder;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The {@code fencing.*} settings of one connection, from URL parameters and driver properties, parsed and validated
 * by the one table of settings, {@link FencingProperty}. Also splits them off the URL and properties so the
 * underlying driver never sees them.
 */
public final class Settings {
    public static final String PREFIX = "jdbc:fencing:";

    /** What to do about the epoch table at connect. */
    public enum SchemaMode { VALIDATE, CREATE }

    private final String targetUrl;
    private final Properties targetProperties;
    private final Map<String, String> values;
    // Each setting's value as FencingProperty's parser made it (or its default), held under the setting's own type:
    // given here once, in the constructor ({@link #value}); null where the setting is unset and has no default.
    private final String resource;
    private final String token;
    /** {@code fencing.token} as a number, 0 when not set; an invalid one fails the connect. */
    private final long staticToken;
    private final String tokenFile;
    private final String tokenEnv;
    private final String resourceEnv;
    private final String tokenSource;
    private final EpochTable epochTable;
    private final boolean schemaCreate;
    private final boolean sessionGuard;
    private final boolean unwrapAllowed;
    private final int cacheSize;
    private final EpochTable leaseTable;
    private final boolean issuerCheck;
    private final boolean declaredResourcesOnly;
    private final FencingMode mode;
    private final Path auditFile;
    private final List<EpochTable> exempt;

    private Settings(String targetUrl, Properties targetProperties, Map<String, String> values) throws SQLException {
        this.targetUrl = targetUrl;
        this.targetProperties = targetProperties;
        this.values = values;
        resource = value(FencingProperty.RESOURCE, String.class);
        token = value(FencingProperty.TOKEN, String.class);
        staticToken = token == null ? 0 : TokenText.parse(token);
        if (staticToken < 0) {
            throw dev.fencing.jdbc.audit.Refusals.invalidTokenSetting(FencingProperty.TOKEN.getName(), token);
        }
        tokenFile = value(FencingProperty.TOKEN_FILE, String.class);
        tokenEnv = value(FencingProperty.TOKEN_ENV, String.class);
        resourceEnv = value(FencingProperty.RESOURCE_ENV, String.class);
        tokenSource = value(FencingProperty.TOKEN_SOURCE, String.class);
        epochTable = value(FencingProperty.TABLE, EpochTable.class);
        schemaCreate = value(FencingProperty.SCHEMA, Boolean.class);
        sessionGuard = value(FencingProperty.GUARD, Boolean.class);
        unwrapAllowed = value(FencingProperty.UNWRAP, Boolean.class);
        cacheSize = value(FencingProperty.CACHE_SIZE, Integer.class);
        leaseTable = value(FencingProperty.LEASE_TABLE, EpochTable.class);
        issuerCheck = value(FencingProperty.ISSUER_CHECK, Boolean.class);
        declaredResourcesOnly = value(FencingProperty.RESOURCES, Boolean.class);
        mode = value(FencingProperty.MODE, FencingMode.class);
        auditFile = value(FencingProperty.AUDIT_FILE, Path.class);
        List<?> exemptParsed = value(FencingProperty.EXEMPT, List.class);
        exempt = exemptParsed == null ? List.of() : exemptParsed.stream().map(EpochTable.class::cast).toList();
        exemptTables();
    }

    /**
     * {@code property}'s value as its parser made it from the given text (or its default), as {@code type}: where
     * each setting gets its type. {@code null} when unset without a default.
     */
    private <T> T value(FencingProperty property, Class<T> type) throws SQLException {
        Object parsed = property.parse(values.get(property.getName()));
        return parsed == null ? null : type.cast(parsed);
    }

    /** Whether {@code url} is one of ours. */
    public static boolean accepts(String url) {
        return url != null && url.regionMatches(true, 0, PREFIX, 0, PREFIX.length());
    }

    /**
     * Splits a {@code jdbc:fencing:} URL and its properties into the underlying driver's URL and properties and
     * the fencing settings. URL parameters override properties of the same name.
     */
    public static Settings parse(String url, Properties info) throws SQLException {
        Map<String, String> values = new LinkedHashMap<>();
        Properties target = new Properties();
        if (info != null) {
            for (Map.Entry<Object, Object> entry : info.entrySet()) {
                if (entry.getKey() instanceof String name && isFencing(name) && !(entry.getValue() instanceof String)) {
                    // Properties.getProperty would ignore it without a word (found by review)
                    throw configuration(name + " must be given as a String, not a "
                            + (entry.getValue() == null ? "null" : entry.getValue().getClass().getSimpleName()));
                }
            }
            for (String name : info.stringPropertyNames()) {
                String value = info.getProperty(name);
                if (isFencing(name)) {
                    values.put(name.toLowerCase(Locale.ROOT), value);
                } else {
                    target.setProperty(name, value);
                }
            }
        }
        String rest = url.substring(PREFIX.length());
        java.util.Set<String> twice = new java.util.TreeSet<>();
        String targetUrl = "jdbc:" + stripUrlSettings(rest, values, twice);
        if (!twice.isEmpty()) {
            throw configuration("given more than once in the URL: " + String.join(", ", twice)
                    + "; give each setting once");
        }
        for (String name : values.keySet()) {
            if (FencingProperty.forName(name) == null) {
                throw unknown(name);
            }
        }
        ConnectTimeSql.refuse(targetUrl, target);
        SessionSwitches.refuse(targetUrl, target);
        return new Settings(targetUrl, target, values);
    }

    /**
     * The {@code fencing.*} values given in {@code url} and {@code info}, by lower-case name, unchecked: what
     * {@link dev.fencing.jdbc.FencingDriver#getPropertyInfo} reports as given.
     */
    public static Map<String, String> given(String url, Properties info) {
        Map<String, String> values = new LinkedHashMap<>();
        if (info != null) {
            for (String name : info.stringPropertyNames()) {
                if (isFencing(name)) {
                    values.put(name.toLowerCase(Locale.ROOT), info.getProperty(name));
                }
            }
        }
        if (accepts(url)) {
            stripUrlSettings(url.substring(PREFIX.length()), values, new java.util.TreeSet<>());
        }
        return values;
    }

    /** Whether {@code name} is one of the {@code fencing.*} settings (case-insensitive); {@code null} is not. */
    public static boolean isFencing(String name) {
        return name != null && name.regionMatches(true, 0, "fencing.", 0, "fencing.".length());
    }

    private static String stripUrlSettings(String rest, Map<String, String> values, java.util.Set<String> twice) {
        Map<String, String> fromUrl = new LinkedHashMap<>();
        int query = rest.indexOf('?');
        String head = query < 0 ? rest : rest.substring(0, query);
        StringBuilder out = new StringBuilder(rest.length());
        String[] segments = head.split(";", -1);
        out.append(segments[0]);
        for (int i = 1; i < segments.length; i++) {
            String segment = segments[i];
            int eq = segment.indexOf('=');
            String name = eq < 0 ? segment : segment.substring(0, eq);
            if (isFencing(name.trim())) {
                urlSetting(fromUrl, twice, name.trim(), eq < 0 ? "" : segment.substring(eq + 1));
            } else {
                out.append(';').append(segment);
            }
        }
        if (query >= 0) {
            StringBuilder kept = new StringBuilder();
            for (String pair : rest.substring(query + 1).split("&", -1)) {
                int eq = pair.indexOf('=');
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                if (isFencing(name)) {
                    urlSetting(fromUrl, twice, name,
                            eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                } else if (!pair.isEmpty()) {
                    kept.append(kept.length() == 0 ? "" : "&").append(pair);
                }
            }
            if (kept.length() > 0) {
                out.append('?').append(kept);
            }
        }
        values.putAll(fromUrl); // URL parameters win over properties
        return out.toString();
    }

    /** One {@code fencing.*} URL parameter; a name given before goes into {@code twice}. */
    private static void urlSetting(Map<String, String> fromUrl, java.util.Set<String> twice, String name,
                                   String value) {
        String key = name.toLowerCase(Locale.ROOT);
        if (fromUrl.put(key, value) != null) {
            twice.add(key);
        }
    }

    /**
     * An unknown setting: the known ones in name order, with the nearest as a suggestion when it is a likely
     * misspelling (at most a third of its letters, and at most three, differ).
     */
    static SQLException unknown(String name) {
        String nearest = null;
        int best = Integer.MAX_VALUE;
        List<String> known = FencingProperty.sortedNames();
        for (String candidate : known) {
            int distance = editDistance(name, candidate);
            if (distance < best) {
                best = distance;
                nearest = candidate;
            }
        }
        String suffix = name.substring("fencing.".length());
        boolean near = best <= Math.min(3, Math.max(1, suffix.length() / 3));
        return configuration("unknown setting '" + name + "'" + (near ? "; did you mean '" + nearest + "'?" : "")
                + " Known settings: " + String.join(", ", known));
    }

    /** Levenshtein distance: the fewest single-character insertions, deletions and substitutions. */
    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /** A configuration error ({@link FencingSqlState#CONFIGURATION}), worded like every other. */
    public static SQLException configuration(String message) {
        return FencingProperty.configurationError(message);
    }

    /** The underlying driver's URL, without any {@code fencing.*} parameter. */
    /**
     * The underlying driver's URL and properties with {@code option} added to pgjdbc's {@code options} (the
     * PostgreSQL startup options): the caller's own options, from the URL (where pgjdbc takes them first) or the
     * properties, are kept ahead of it, and the URL no longer carries them, so the one merged value is what pgjdbc
     * sends.
     */
    public Target withPostgresOption(String option) {
        String url = targetUrl;
        Properties properties = new Properties();
        properties.putAll(targetProperties);
        String given = properties.getProperty("options");
        int query = url.indexOf('?');
        if (query >= 0) {
            StringBuilder kept = new StringBuilder();
            for (String pair : url.substring(query + 1).split("&", -1)) {
                int eq = pair.indexOf('=');
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                if (name.equals("options")) {
                    given = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                } else if (!pair.isEmpty()) {
                    kept.append(kept.length() == 0 ? "" : "&").append(pair);
                }
            }
            url = url.substring(0, query) + (kept.length() == 0 ? "" : "?" + kept);
        }
        properties.setProperty("options", given == null || given.isBlank() ? option : given + " " + option);
        return new Target(url, properties);
    }

    /** The underlying driver's URL, with its properties and {@code key=value} (which a property of the URL does not override). */
    public Target withProperty(String key, String value) {
        Properties properties = new Properties();
        properties.putAll(targetProperties);
        properties.setProperty(key, value);
        return new Target(targetUrl, properties);
    }

    /** The underlying driver's URL and properties. */
    public record Target(String url, Properties properties) {
    }

    public String targetUrl() {
        return targetUrl;
    }

    /** The underlying driver's properties, without any {@code fencing.*} property. */
    public Properties targetProperties() {
        return targetProperties;
    }

    /**
     * A setting's value as text (a text setting's trimmed value, or its default), or {@code null}. Every setting has
     * its field here: the switch names each, so a new setting does not compile until it has one.
     */
    public String text(FencingProperty property) {
        Object value = switch (property) {
            case RESOURCE -> resource;
            case TOKEN -> token;
            case TOKEN_FILE -> tokenFile;
            case TOKEN_ENV -> tokenEnv;
            case RESOURCE_ENV -> resourceEnv;
            case TOKEN_SOURCE -> tokenSource;
            case TABLE -> epochTable;
            case SCHEMA -> schemaCreate;
            case GUARD -> sessionGuard;
            case UNWRAP -> unwrapAllowed;
            case CACHE_SIZE -> cacheSize;
            case LEASE_TABLE -> leaseTable;
            case ISSUER_CHECK -> issuerCheck;
            case RESOURCES -> declaredResourcesOnly;
            case MODE -> mode;
            case AUDIT_FILE -> auditFile;
            case EXEMPT -> values.containsKey(FencingProperty.EXEMPT.getName()) ? exempt : null;
        };
        return value == null ? null : value.toString();
    }

    /** The static token ({@code fencing.token}), checked at connect; 0 when not set. */
    public long staticToken() {
        return staticToken;
    }

    /** The configured {@code fencing.resource}, or {@code null}. */
    public String resource() {
        return resource;
    }

    /**
     * {@code value} with surrounding white space removed, when it is a valid resource name by the one rule of
     * {@link ResourceName}; {@code null} when blank (no resource from this source). Any other value is refused
     * as a configuration error ({@link FencingSqlState#CONFIGURATION}) naming {@code source}, so no resource
     * name that breaks the rule ever reaches a statement.
     */
    public static String resourceName(String value, String source) throws SQLException {
        return FencingProperty.resourceName(value, source);
    }

    public String tokenEnvName() {
        return tokenEnv;
    }

    public String resourceEnvName() {
        return resourceEnv;
    }

    public EpochTable epochTable() {
        return epochTable;
    }

    public EpochTable leaseTable() {
        return leaseTable;
    }

    /** Whether {@code fencing.lease.table} was set, rather than defaulted: then the lease table must exist. */
    public boolean leaseTableConfigured() {
        return values.containsKey(FencingProperty.LEASE_TABLE.getName());
    }

    /**
     * Whether the guard refuses never-issued tokens: {@code auto} (the default) checks every resource that has a
     * row in the lease table; {@code off} checks none (every resource is fed by an external coordinator).
     */
    public boolean issuerCheck() {
        return issuerCheck;
    }

    /** Whether mutations are fenced by the session fence ({@code fencing.guard=session}) rather than per statement. */
    public boolean sessionGuard() {
        return sessionGuard;
    }

    /** Whether only known resources may be written ({@code fencing.resources=declared}, SPEC C11). */
    public boolean declaredResourcesOnly() {
        return declaredResourcesOnly;
    }

    public SchemaMode schemaMode() {
        return schemaCreate ? SchemaMode.CREATE : SchemaMode.VALIDATE;
    }

    public boolean unwrapAllowed() {
        return unwrapAllowed;
    }

    public FencingMode mode() {
        return mode;
    }

    /** Where the audit report is written at exit: the configured file, or {@code null} when none is set. */
    public Path auditFile() {
        return auditFile;
    }

    public int cacheSize() {
        return cacheSize;
    }

    /**
     * The tables named by {@code fencing.exempt}, as configured (plain identifiers, {@code table} or
     * {@code schema.table}): each connection resolves them as its database resolves such a name (see
     * {@link Catalog}). Only data changes whose every target is one of them run without token and guard.
     */
    public List<EpochTable> exemptTables() throws SQLException {
        String epoch = epochTable.simpleName();
        for (EpochTable table : exempt) {
            if (table.simpleName().equals(epoch)) {
                throw configuration(FencingProperty.EXEMPT.getName() + ": the epoch table '" + epoch
                        + "' cannot be exempt");
            }
        }
        return exempt;
    }
}
