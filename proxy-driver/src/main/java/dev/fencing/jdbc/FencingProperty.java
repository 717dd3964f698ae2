package dev.fencing.jdbc;

import dev.fencing.sql.EpochTable;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Every {@code fencing.*} setting, with its default, its description and its parser: the one table that the
 * driver's parsing and validation, {@link FencingDriver#getPropertyInfo}, the {@link FencingDataSource} setters, the
 * JUnit extension and the README's settings table (checked by a test) all come from, after pgjdbc's
 * {@code PGProperty}. Settings come from URL parameters and driver properties, URL parameters winning.
 */
public enum FencingProperty {
    RESOURCE("fencing.resource", null, "`" + FencingProperty.DEFAULT_RESOURCE + "` (or `$"
            + FencingProperty.DEFAULT_RESOURCE_ENV + "`)",
            "the resource this connection's mutations are fenced for", Parsers::resource),
    TOKEN("fencing.token", null, null, "a static token (a positive 64-bit integer)", Parsers::asGiven),
    TOKEN_FILE("fencing.token.file", null, null, "a file holding the token; read again at every statement that needs"
            + " the token, so a lease agent can rewrite it in any way (even `cp -p` or `rsync -t`, which keep its size"
            + " and modification time)", Parsers::text),
    TOKEN_ENV("fencing.token.env", FencingProperty.DEFAULT_TOKEN_ENV, null, "the environment variable holding the"
            + " token", Parsers::text),
    RESOURCE_ENV("fencing.resource.env", FencingProperty.DEFAULT_RESOURCE_ENV, null, "the environment variable"
            + " holding the resource", Parsers::text),
    TOKEN_SOURCE("fencing.token.source", null, null, "class name of a `dev.fencing.jdbc.TokenSource` (public,"
            + " no-argument constructor), asked at every mutation", Parsers::text),
    TABLE("fencing.table", "fencing_epoch", null, "epoch table, `table` or `schema.table`, plain identifiers only (it"
            + " is quoted in SQL, folded the way the database folds unquoted names)", Parsers::table),
    SCHEMA("fencing.schema", "validate", null, "`validate`: a missing epoch table is an error at connect; `create`:"
            + " create it", Parsers::schema, "validate", "create"),
    GUARD("fencing.guard", "statement", null, "`statement`: every mutation carries its own guard; `session`"
            + " (PostgreSQL, MariaDB): a connection registers once per token and then writes untouched, and an epoch change"
            + " ends the sessions of older tokens first: see [docs/session-fence.md](docs/session-fence.md)",
            Parsers::guard, "statement", "session"),
    UNWRAP("fencing.unwrap", "deny", null, "`allow` lets `unwrap` hand out the underlying driver's objects (for"
            + " example pgjdbc's `PGConnection`): an explicit escape hatch, since those objects can run SQL unguarded",
            Parsers::unwrap, "deny", "allow"),
    CACHE_SIZE("fencing.cache.size", "4096", null, "analysed statements kept per database (bounded; a full cache is"
            + " cleared)", Parsers::positive),
    LEASE_TABLE("fencing.lease.table", "fencing_lease", null, "the [token issuer](docs/issuer.md#the-token-issuer)'s"
            + " lease table, named like `fencing.table`; it cannot be written through the driver. When set explicitly"
            + " (and the issuer check is on) it must exist: a missing one is `ZF006` at connect", Parsers::table),
    ISSUER_CHECK("fencing.issuer.check", "auto", null, "`auto`: a token above the issued mark of a resource with a"
            + " lease row is refused (`ZF003`); `off`: never checked (every resource is fed by an external"
            + " coordinator)", Parsers::issuerCheck, "auto", "off"),
    RESOURCES("fencing.resources", "declared", null, "`declared`: a write under a resource that is neither declared"
            + " (`fencing declare`) nor mapped to a table, nor has a mark or a lease, is refused (`ZF001`), so a misspelt"
            + " or differently cased name never starts a new resource; `any`: every valid name may start one (see"
            + " [docs/resources.md](docs/resources.md))", Parsers::resources, "declared", "any"),
    MODE("fencing.mode", "enforce", null, "`enforce`: refusals are thrown; `audit`: nothing is refused but writes to"
            + " the epoch and lease tables, what enforce mode would refuse runs unguarded and is reported (see"
            + " [docs/audit.md](docs/audit.md))", Parsers::mode, "enforce", "audit"),
    AUDIT_FILE("fencing.audit.file", null, "`" + FencingProperty.DEFAULT_AUDIT_FILE + "` (audit mode only)", "where the"
            + " audit report is written at JVM exit, with the readable summary beside it (`.txt`); setting it in"
            + " enforce mode writes the report of refusals too", Parsers::file),
    EXEMPT("fencing.exempt", null, null, "comma-separated plain tables (`table` or `schema.table`, read as the"
            + " database reads an unquoted name, resolved at connect) whose `INSERT`, `UPDATE`, `DELETE`, `MERGE` and"
            + " `COPY ... FROM` need no token; never DDL, views or several statements: see"
            + " [docs/guarding.md](docs/guarding.md#escape-hatches)", Parsers::tables);

    /** The resource when no source names one. */
    public static final String DEFAULT_RESOURCE = "default";
    /** The environment variable a token is read from when {@code fencing.token.env} names none. */
    public static final String DEFAULT_TOKEN_ENV = "FENCING_TOKEN";
    /**
     * The environment variable holding tokens for several resources, {@code resource=token} separated by spaces
     * ({@code fencing exec} with several {@code --resource}): read for resources other than the connection's own,
     * which tables are mapped to (SPEC C11).
     */
    public static final String DEFAULT_TOKENS_ENV = "FENCING_TOKENS";
    /** The environment variable a resource is read from when {@code fencing.resource.env} names none. */
    public static final String DEFAULT_RESOURCE_ENV = "FENCING_RESOURCE";
    /** Where an audit-mode connection without {@code fencing.audit.file} writes its report at exit. */
    public static final String DEFAULT_AUDIT_FILE = "fencing-audit.json";

    /** Turns a setting's text (never {@code null}) into its value, or refuses it with {@code ZF006}. */
    @FunctionalInterface
    interface Parser {
        Object parse(FencingProperty property, String text) throws SQLException;
    }

    private final String name;
    private final String defaultValue;
    private final String shownDefault;
    private final String description;
    private final Parser parser;
    private final String[] choices;

    FencingProperty(String name, String defaultValue, String shownDefault, String description, Parser parser,
                    String... choices) {
        this.name = name;
        this.defaultValue = defaultValue;
        this.shownDefault = shownDefault != null ? shownDefault : defaultValue != null ? "`" + defaultValue + "`"
                : "none";
        this.description = description;
        this.parser = parser;
        this.choices = choices;
    }

    /** The name, as in URLs and properties: {@code fencing.token.file}. */
    public String getName() {
        return name;
    }

    /** The value used when the setting is not given, or {@code null} when there is none. */
    public String getDefaultValue() {
        return defaultValue;
    }

    /** The default as a person reads it (Markdown): {@code none}, {@code `FENCING_TOKEN`}, ... */
    public String getShownDefault() {
        return shownDefault;
    }

    /** What the setting does (Markdown, as in the README's table). */
    public String getDescription() {
        return description;
    }

    /** The values the setting takes, when it takes a fixed few; otherwise empty. */
    public List<String> getChoices() {
        return List.of(choices);
    }

    /** The {@code FencingDataSource} bean property: {@code fencing.token.file} is {@code tokenFile}. */
    public String getBeanName() {
        StringBuilder bean = new StringBuilder();
        for (String part : name.substring("fencing.".length()).split("\\.")) {
            bean.append(bean.length() == 0 ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return bean.toString();
    }

    /**
     * The value of this setting given as {@code text}: the default when {@code text} is {@code null}; a resource
     * name, a table, a mode, a number, ... as the setting says; a bad value is an {@link SQLException} with
     * {@link FencingSqlState#CONFIGURATION} that names the setting. {@code null} when the setting is unset and has
     * no default.
     */
    public Object parse(String text) throws SQLException {
        String value = text != null ? text : defaultValue;
        Object parsed = value == null ? null : parser.parse(this, value);
        // A blank value is no value: the default, where there is one.
        return parsed == null && text != null && defaultValue != null ? parser.parse(this, defaultValue) : parsed;
    }

    /** The setting in {@code properties}, or {@code null}. */
    public String get(Properties properties) {
        return properties.getProperty(name);
    }

    /** Sets the setting in {@code properties}; {@code null} removes it. */
    public void set(Properties properties, String value) {
        if (value == null) {
            properties.remove(name);
        } else {
            properties.setProperty(name, value);
        }
    }

    /** This setting as {@link FencingDriver#getPropertyInfo} reports it, with the given value or the default. */
    public DriverPropertyInfo toDriverPropertyInfo(String given) {
        DriverPropertyInfo info = new DriverPropertyInfo(name, given != null ? given : defaultValue);
        info.description = plain(description) + " (default: " + plain(shownDefault) + ")";
        info.choices = choices.length == 0 ? null : choices.clone();
        return info;
    }

    /** The README's row for this setting. */
    public String markdownRow() {
        return "| `" + name + "` | " + shownDefault + " | " + description + " |";
    }

    /** The README's settings table: header and one row per setting, in this enum's order. */
    public static String markdownTable() {
        StringBuilder table = new StringBuilder("| setting | default | meaning |\n|---|---|---|\n");
        for (FencingProperty property : values()) {
            table.append(property.markdownRow()).append('\n');
        }
        return table.toString();
    }

    /** The setting called {@code name} (any case), or {@code null}. */
    public static FencingProperty forName(String name) {
        if (name == null) {
            return null;
        }
        String lower = name.trim().toLowerCase(Locale.ROOT);
        for (FencingProperty property : values()) {
            if (property.name.equals(lower)) {
                return property;
            }
        }
        return null;
    }

    /** Every name, sorted: what an unknown-setting message lists. */
    public static List<String> sortedNames() {
        List<String> names = new ArrayList<>();
        for (FencingProperty property : values()) {
            names.add(property.name);
        }
        names.sort(null);
        return names;
    }

    /** Markdown to plain text: code quotes dropped, links reduced to their words. */
    private static String plain(String markdown) {
        return markdown.replace("`", "").replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
    }

    /**
     * A configuration error ({@link FencingSqlState#CONFIGURATION}), worded like every other: the one place such an
     * error is made (the settings, the schema checks and the command line use it).
     */
    public static java.sql.SQLException configurationError(String message) {
        return new java.sql.SQLException("fencing: " + message, FencingSqlState.CONFIGURATION);
    }

    /**
     * A resource name as given by {@code source} (a setting, a call), trimmed; {@code null} when blank; a
     * configuration error when it breaks the naming rule ({@link dev.fencing.sql.ResourceName}).
     */
    public static String resourceName(String value, String source) throws java.sql.SQLException {
        if (value == null || value.isBlank()) {
            return null;
        }
        String name = value.trim();
        String problem = dev.fencing.sql.ResourceName.problem(name);
        if (problem != null) {
            throw configurationError(source + ": " + problem);
        }
        return name;
    }

    /** The parsers of the table above. */
    private static final class Parsers {
        private Parsers() {
        }

        /** Kept as given: {@link dev.fencing.jdbc.config.Settings} checks a token with the one token rule. */
        static Object asGiven(FencingProperty property, String text) {
            return text;
        }

        static Object text(FencingProperty property, String text) {
            return text.isBlank() ? null : text.trim();
        }

        static Object resource(FencingProperty property, String text) throws SQLException {
            return resourceName(text, property.name);
        }

        static Object table(FencingProperty property, String text) throws SQLException {
            try {
                return EpochTable.of(text);
            } catch (IllegalArgumentException e) {
                throw configurationError(property.name + ": " + e.getMessage());
            }
        }

        static Object tables(FencingProperty property, String text) throws SQLException {
            List<EpochTable> tables = new ArrayList<>();
            if (text.isBlank()) {
                return tables;
            }
            for (String name : text.split(",", -1)) {
                try {
                    tables.add(EpochTable.of(name.trim()));
                } catch (IllegalArgumentException e) {
                    throw configurationError(property.name + ": '" + name.trim() + "' is not a table name (plain"
                            + " identifiers, table or schema.table, separated by commas)");
                }
            }
            return List.copyOf(tables);
        }

        static Object positive(FencingProperty property, String text) throws SQLException {
            try {
                int parsed = Integer.parseInt(text.trim());
                if (parsed > 0) {
                    return parsed;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw configurationError(property.name + " must be a positive integer, was '" + text + "'");
        }

        static Object file(FencingProperty property, String text) throws SQLException {
            if (text.isBlank()) {
                return null;
            }
            try {
                return Path.of(text.trim());
            } catch (InvalidPathException e) {
                throw configurationError(property.name + " is not a file name: " + e.getMessage());
            }
        }

        /** Which of the property's choices {@code text} is (any case, white space ignored). */
        private static int choice(FencingProperty property, String text) throws SQLException {
            String given = text.trim().toLowerCase(Locale.ROOT);
            for (int i = 0; i < property.choices.length; i++) {
                if (property.choices[i].equals(given)) {
                    return i;
                }
            }
            throw configurationError(property.name + " must be '" + String.join("' or '", property.choices)
                    + "', was '" + given + "'");
        }

        static Object schema(FencingProperty property, String text) throws SQLException {
            return choice(property, text) == 1; // create
        }

        static Object unwrap(FencingProperty property, String text) throws SQLException {
            return choice(property, text) == 1;
        }

        static Object guard(FencingProperty property, String text) throws SQLException {
            return choice(property, text) == 1;
        }

        static Object issuerCheck(FencingProperty property, String text) throws SQLException {
            return choice(property, text) == 0;
        }

        static Object resources(FencingProperty property, String text) throws SQLException {
            return choice(property, text) == 0;
        }

        static Object mode(FencingProperty property, String text) throws SQLException {
            return choice(property, text) == 0 ? FencingMode.ENFORCE : FencingMode.AUDIT;
        }
    }
}
