package dev.fencing.jdbc.internal;

import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.ResourceName;

import java.net.URLDecoder;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The {@code fencing.*} settings of one connection, from URL parameters and driver properties, with their
 * defaults: the one place that knows every setting's name. Also splits them off the URL and properties so the
 * underlying driver never sees them.
 */
public final class Settings {
    public static final String PREFIX = "jdbc:fencing:";

    public static final String RESOURCE = "fencing.resource";
    public static final String TOKEN = "fencing.token";
    public static final String TOKEN_FILE = "fencing.token.file";
    public static final String TOKEN_ENV = "fencing.token.env";
    public static final String RESOURCE_ENV = "fencing.resource.env";
    public static final String TOKEN_SOURCE = "fencing.token.source";
    public static final String TABLE = "fencing.table";
    public static final String SCHEMA = "fencing.schema";
    public static final String UNWRAP = "fencing.unwrap";
    public static final String CACHE_SIZE = "fencing.cache.size";
    public static final String LEASE_TABLE = "fencing.lease.table";
    public static final String ISSUER_CHECK = "fencing.issuer.check";
    public static final String MODE = "fencing.mode";
    public static final String AUDIT_FILE = "fencing.audit.file";
    public static final String EXEMPT = "fencing.exempt";
    public static final String GUARD = "fencing.guard";

    public static final String DEFAULT_RESOURCE = "default";
    public static final String DEFAULT_TOKEN_ENV = "FENCING_TOKEN";
    public static final String DEFAULT_RESOURCE_ENV = "FENCING_RESOURCE";
    public static final String DEFAULT_TABLE = "fencing_epoch";
    public static final int DEFAULT_CACHE_SIZE = 4096;
    public static final String DEFAULT_LEASE_TABLE = "fencing_lease";
    public static final String DEFAULT_AUDIT_FILE = "fencing-audit.json";

    /** One setting: its name, its default as a person reads it, and what it is for. */
    public record Definition(String name, String defaultValue, String description) {
    }

    /** Every setting, sorted by name: the one list that messages and {@code getPropertyInfo} are made from. */
    public static final List<Definition> DEFINITIONS = sorted(List.of(
            new Definition(RESOURCE, DEFAULT_RESOURCE + " (or $" + DEFAULT_RESOURCE_ENV + ")",
                    "the resource this connection's mutations are fenced for"),
            new Definition(TOKEN, "none", "a static fencing token (a positive 64-bit integer)"),
            new Definition(TOKEN_FILE, "none", "a file holding the token, re-read whenever it changes"),
            new Definition(TOKEN_ENV, DEFAULT_TOKEN_ENV, "the environment variable holding the token"),
            new Definition(RESOURCE_ENV, DEFAULT_RESOURCE_ENV, "the environment variable holding the resource"),
            new Definition(TOKEN_SOURCE, "none", "class name of a dev.fencing.jdbc.TokenSource (public, no-argument"
                    + " constructor), asked at every mutation"),
            new Definition(TABLE, DEFAULT_TABLE, "the epoch table, table or schema.table (plain identifiers)"),
            new Definition(SCHEMA, "validate", "validate: a missing epoch table is an error at connect; create:"
                    + " create it"),
            new Definition(UNWRAP, "deny", "allow lets unwrap hand out the underlying driver's objects, which can"
                    + " run SQL unguarded"),
            new Definition(CACHE_SIZE, Integer.toString(DEFAULT_CACHE_SIZE), "analysed statements kept per"
                    + " database"),
            new Definition(LEASE_TABLE, DEFAULT_LEASE_TABLE, "the token issuer's lease table, named like "
                    + TABLE + "; must exist when set explicitly"),
            new Definition(ISSUER_CHECK, "auto", "auto: a token above the issued mark of a resource with a lease"
                    + " row is refused; off: never checked"),
            new Definition(MODE, "enforce", "enforce: refusals are thrown; audit: what enforce mode would refuse"
                    + " runs unguarded and is reported"),
            new Definition(AUDIT_FILE, DEFAULT_AUDIT_FILE + " (audit mode only)", "where the audit report is"
                    + " written at JVM exit"),
            new Definition(GUARD, "statement", "statement: every mutation carries its own guard; session"
                    + " (PostgreSQL): a connection registers once per token and its mutations go untouched, an epoch"
                    + " change ends the sessions of older tokens"),
            new Definition(EXEMPT, "none", "comma-separated plain tables (table or schema.table) whose"
                    + " INSERT/UPDATE/DELETE/MERGE/COPY FROM need no token")));

    private static final Set<String> KNOWN = names();

    private static List<Definition> sorted(List<Definition> definitions) {
        List<Definition> sorted = new ArrayList<>(definitions);
        sorted.sort(Comparator.comparing(Definition::name));
        return List.copyOf(sorted);
    }

    private static Set<String> names() {
        Set<String> names = new LinkedHashSet<>();
        for (Definition definition : DEFINITIONS) {
            names.add(definition.name());
        }
        return Set.copyOf(names);
    }

    /** What to do about the epoch table at connect. */
    public enum SchemaMode { VALIDATE, CREATE }

    /** What a refusal does: {@code ENFORCE} throws it; {@code AUDIT} records it and runs the statement unguarded. */
    public enum Mode { ENFORCE, AUDIT }

    private final String targetUrl;
    private final Properties targetProperties;
    private final Map<String, String> values;

    private Settings(String targetUrl, Properties targetProperties, Map<String, String> values) {
        this.targetUrl = targetUrl;
        this.targetProperties = targetProperties;
        this.values = values;
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
        String targetUrl = "jdbc:" + stripUrlSettings(rest, values);
        for (String name : values.keySet()) {
            if (!KNOWN.contains(name)) {
                throw unknown(name);
            }
        }
        Settings settings = new Settings(targetUrl, target, values);
        settings.resource();
        settings.epochTable();
        settings.schemaMode();
        settings.unwrapAllowed();
        settings.cacheSize();
        settings.leaseTable();
        settings.issuerCheck();
        settings.sessionGuard();
        settings.mode();
        settings.auditFile();
        settings.exemptTables();
        return settings;
    }

    /** Whether {@code name} is one of the {@code fencing.*} settings (case-insensitive); {@code null} is not. */
    static boolean isFencing(String name) {
        return name != null && name.regionMatches(true, 0, "fencing.", 0, "fencing.".length());
    }

    private static String stripUrlSettings(String rest, Map<String, String> values) {
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
                values.put(name.trim().toLowerCase(Locale.ROOT), eq < 0 ? "" : segment.substring(eq + 1));
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
                    String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                    values.put(name.toLowerCase(Locale.ROOT), value);
                } else if (!pair.isEmpty()) {
                    kept.append(kept.length() == 0 ? "" : "&").append(pair);
                }
            }
            if (kept.length() > 0) {
                out.append('?').append(kept);
            }
        }
        return out.toString();
    }

    /**
     * An unknown setting: the known ones in name order, with the nearest as a suggestion when it is a likely
     * misspelling (at most a third of its letters, and at most three, differ).
     */
    static SQLException unknown(String name) {
        String nearest = null;
        int best = Integer.MAX_VALUE;
        List<String> known = new ArrayList<>();
        for (Definition definition : DEFINITIONS) {
            known.add(definition.name());
            int distance = editDistance(name, definition.name());
            if (distance < best) {
                best = distance;
                nearest = definition.name();
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

    static SQLException configuration(String message) {
        return new SQLException("fencing: " + message, FencingSqlState.CONFIGURATION);
    }

    /** The underlying driver's URL, without any {@code fencing.*} parameter. */
    public String targetUrl() {
        return targetUrl;
    }

    /** The underlying driver's properties, without any {@code fencing.*} property. */
    public Properties targetProperties() {
        return targetProperties;
    }

    /** A setting's configured value, or {@code null}. */
    public String get(String name) {
        return values.get(name);
    }

    /** The configured {@code fencing.resource}, or {@code null}; an invalid name is a configuration error. */
    public String resource() throws SQLException {
        return resourceName(values.get(RESOURCE), RESOURCE);
    }

    /**
     * {@code value} with surrounding white space removed, when it is a valid resource name by the one rule of
     * {@link ResourceName}; {@code null} when blank (no resource from this source). Any other value is refused
     * as a configuration error ({@link FencingSqlState#CONFIGURATION}) naming {@code source}, so no resource
     * name that breaks the rule ever reaches a statement.
     */
    public static String resourceName(String value, String source) throws SQLException {
        if (value == null || value.isBlank()) {
            return null;
        }
        String name = value.trim();
        String problem = ResourceName.problem(name);
        if (problem != null) {
            throw configuration(source + ": " + problem);
        }
        return name;
    }

    public String tokenEnvName() {
        return values.getOrDefault(TOKEN_ENV, DEFAULT_TOKEN_ENV);
    }

    public String resourceEnvName() {
        return values.getOrDefault(RESOURCE_ENV, DEFAULT_RESOURCE_ENV);
    }

    public EpochTable epochTable() throws SQLException {
        return table(TABLE, DEFAULT_TABLE);
    }

    public EpochTable leaseTable() throws SQLException {
        return table(LEASE_TABLE, DEFAULT_LEASE_TABLE);
    }

    /** Whether {@code fencing.lease.table} was set, rather than defaulted: then the lease table must exist. */
    public boolean leaseTableConfigured() {
        return values.containsKey(LEASE_TABLE);
    }

    private EpochTable table(String setting, String defaultName) throws SQLException {
        try {
            return EpochTable.of(values.getOrDefault(setting, defaultName));
        } catch (IllegalArgumentException e) {
            throw configuration(setting + ": " + e.getMessage());
        }
    }

    /**
     * Whether the guard refuses never-issued tokens: {@code auto} (the default) checks every resource that has a
     * row in the lease table; {@code off} checks none (every resource is fed by an external coordinator).
     */
    public boolean issuerCheck() throws SQLException {
        String mode = values.getOrDefault(ISSUER_CHECK, "auto").trim().toLowerCase(Locale.ROOT);
        switch (mode) {
            case "auto":
                return true;
            case "off":
                return false;
            default:
                throw configuration(ISSUER_CHECK + " must be 'auto' or 'off', was '" + mode + "'");
        }
    }

    /** Whether mutations are fenced by the session fence ({@code fencing.guard=session}) rather than per statement. */
    public boolean sessionGuard() throws SQLException {
        String mode = values.getOrDefault(GUARD, "statement").trim().toLowerCase(Locale.ROOT);
        switch (mode) {
            case "statement":
                return false;
            case "session":
                return true;
            default:
                throw configuration(GUARD + " must be 'statement' or 'session', was '" + mode + "'");
        }
    }

    public SchemaMode schemaMode() throws SQLException {
        String mode = values.getOrDefault(SCHEMA, "validate").trim().toLowerCase(Locale.ROOT);
        switch (mode) {
            case "validate":
                return SchemaMode.VALIDATE;
            case "create":
                return SchemaMode.CREATE;
            default:
                throw configuration(SCHEMA + " must be 'validate' or 'create', was '" + mode + "'");
        }
    }

    public boolean unwrapAllowed() throws SQLException {
        String mode = values.getOrDefault(UNWRAP, "deny").trim().toLowerCase(Locale.ROOT);
        switch (mode) {
            case "deny":
                return false;
            case "allow":
                return true;
            default:
                throw configuration(UNWRAP + " must be 'deny' or 'allow', was '" + mode + "'");
        }
    }

    public Mode mode() throws SQLException {
        String mode = values.getOrDefault(MODE, "enforce").trim().toLowerCase(Locale.ROOT);
        switch (mode) {
            case "enforce":
                return Mode.ENFORCE;
            case "audit":
                return Mode.AUDIT;
            default:
                throw configuration(MODE + " must be 'enforce' or 'audit', was '" + mode + "'");
        }
    }

    /** Where the audit report is written at exit: the configured file, or {@code null} when none is set. */
    public Path auditFile() throws SQLException {
        String file = values.get(AUDIT_FILE);
        if (file == null || file.isBlank()) {
            return null;
        }
        try {
            return Path.of(file.trim());
        } catch (InvalidPathException e) {
            throw configuration(AUDIT_FILE + " is not a file name: " + e.getMessage());
        }
    }

    public int cacheSize() throws SQLException {
        String size = values.get(CACHE_SIZE);
        if (size == null) {
            return DEFAULT_CACHE_SIZE;
        }
        try {
            int parsed = Integer.parseInt(size.trim());
            if (parsed > 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw configuration(CACHE_SIZE + " must be a positive integer, was '" + size + "'");
    }

    /**
     * The tables named by {@code fencing.exempt}, as configured (plain identifiers, {@code table} or
     * {@code schema.table}): each connection resolves them as its database resolves such a name (see
     * {@link Catalog}). Only data changes whose every target is one of them run without token and guard.
     */
    public List<EpochTable> exemptTables() throws SQLException {
        String list = values.get(EXEMPT);
        List<EpochTable> tables = new ArrayList<>();
        if (list == null || list.isBlank()) {
            return tables;
        }
        String epochTable = epochTable().simpleName();
        for (String name : list.split(",", -1)) {
            EpochTable table;
            try {
                table = EpochTable.of(name.trim());
            } catch (IllegalArgumentException e) {
                throw configuration(EXEMPT + ": '" + name.trim() + "' is not a table name (plain identifiers,"
                        + " table or schema.table, separated by commas)");
            }
            if (table.simpleName().equals(epochTable)) {
                throw configuration(EXEMPT + ": the epoch table '" + epochTable + "' cannot be exempt");
            }
            tables.add(table);
        }
        return tables;
    }
}
