package dev.fencing.sql;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The name of one of the fence's own tables (the epoch table, the lease table): either as configured
 * ({@code schema.table} or {@code table}, validated once so it can never carry SQL), or as the database resolved
 * it at connect ({@link #resolved}: schema and table exactly as stored, so no later session setting can move it).
 */
public final class EpochTable {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final String schema;
    private final String table;
    /** Whether the names are exactly as the database stores them (quoted verbatim) rather than as configured. */
    private final boolean exact;

    private EpochTable(String schema, String table, boolean exact) {
        this.schema = schema;
        this.table = table;
        this.exact = exact;
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
        return parts.length == 2 ? new EpochTable(parts[0], parts[1], false) : new EpochTable(null, parts[0], false);
    }

    /**
     * A table as the database resolved it: schema and table exactly as its catalog stores them, quoted verbatim
     * in SQL.
     */
    public static EpochTable resolved(String schema, String table) {
        if (schema == null || schema.isEmpty() || table == null || table.isEmpty()) {
            throw new IllegalArgumentException("a resolved table needs a schema and a table, got " + schema + "." + table);
        }
        return new EpochTable(schema, table, true);
    }

    /** The table's own name, without schema, lower-cased: what a statement's target is compared with. */
    public String simpleName() {
        return Names.fold(table);
    }

    /** Whether the name carries a schema. */
    public boolean qualified() {
        return schema != null;
    }

    /** The schema as the database stores it ({@code null} when unqualified): configured names folded by {@code dialect}. */
    public String storedSchema(Dialect dialect) {
        return schema == null ? null : stored(schema, dialect);
    }

    /** The table's own name as the database stores it: configured names folded by {@code dialect}. */
    public String storedTable(Dialect dialect) {
        return stored(table, dialect);
    }

    private String stored(String name, Dialect dialect) {
        if (exact) {
            return name;
        }
        String quoted = dialect.quoteIdentifier(name);
        return quoted.substring(1, quoted.length() - 1);
    }

    /** The quoted, qualified name as the dialect writes it in SQL. */
    public String render(Dialect dialect) {
        String quoted = quote(table, dialect);
        return schema == null ? quoted : quote(schema, dialect) + '.' + quoted;
    }

    /** The quoted schema, followed by a dot, or an empty string when unqualified: a prefix for objects beside the table. */
    public String renderSchemaPrefix(Dialect dialect) {
        return schema == null ? "" : quote(schema, dialect) + '.';
    }

    private String quote(String name, Dialect dialect) {
        return exact ? dialect.quoteExact(name) : dialect.quoteIdentifier(name);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EpochTable other && exact == other.exact && Objects.equals(schema, other.schema)
                && table.equals(other.table);
    }

    @Override
    public int hashCode() {
        return Objects.hash(schema, table, exact);
    }

    @Override
    public String toString() {
        return schema == null ? table : schema + '.' + table;
    }
}
