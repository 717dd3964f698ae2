package dev.fencing.sql;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The name of one of the fence's own tables (the epoch table, the lease table), validated once so it can never
 * carry SQL; {@code schema.table} or {@code table}.
 */
public final class EpochTable {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final String schema;
    private final String table;

    private EpochTable(String schema, String table) {
        this.schema = schema;
        this.table = table;
    }

    /**
     * Parses a configured table name.
     *
     * @throws IllegalArgumentException when the name is not one or two plain identifiers
     */
    public static EpochTable of(String qualifiedName) {
        if (qualifiedName == null) {
            throw new IllegalArgumentException("table name is missing");
        }
        String[] parts = qualifiedName.trim().split("\\.", -1);
        if (parts.length > 2) {
            throw new IllegalArgumentException("table name '" + qualifiedName + "' has more than two parts");
        }
        for (String part : parts) {
            if (!IDENTIFIER.matcher(part).matches()) {
                throw new IllegalArgumentException("table name '" + qualifiedName
                        + "' is not a plain identifier (letters, digits and _, at most 63 characters)");
            }
        }
        return parts.length == 2 ? new EpochTable(parts[0], parts[1]) : new EpochTable(null, parts[0]);
    }

    /** The table's own name, without schema, lower-cased: what a statement's target is compared with. */
    public String simpleName() {
        return table.toLowerCase(Locale.ROOT);
    }

    /** The schema as configured, or {@code null} when unqualified. */
    String schema() {
        return schema;
    }

    /** The table's own name as configured. */
    String table() {
        return table;
    }

    /** The quoted, qualified name as the dialect writes it in SQL. */
    public String render(Dialect dialect) {
        String quoted = dialect.quoteIdentifier(table);
        return schema == null ? quoted : dialect.quoteIdentifier(schema) + '.' + quoted;
    }

    @Override
    public String toString() {
        return schema == null ? table : schema + '.' + table;
    }
}
