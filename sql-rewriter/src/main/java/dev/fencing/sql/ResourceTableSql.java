package dev.fencing.sql;

/**
 * The resource table beside the epoch table ({@code fencing_epoch_resource} for {@code fencing_epoch}): the one place
 * that knows how resources are declared and tables mapped to them (SPEC C11). Each row names a resource and, for a
 * mapping, one table as the database's catalog stores its schema and name; a declaration of a resource without a
 * table has empty schema and table. A table may be mapped to several resources: a change to it then needs a current
 * token for each.
 *
 * <p>A resource is <em>known</em> when it has a row here, a high-water mark in the epoch table, or a lease in the lease
 * table: only a known resource can authorise a write, so a misspelt or differently cased name is refused rather than
 * silently starting a new resource.
 */
public final class ResourceTableSql {
    /** What the resource table's name adds to the epoch table's. */
    public static final String SUFFIX = "_resource";

    private final Dialect dialect;
    private final EpochTable resourceTable;
    private final String table;
    private final String epoch;

    /** The resource table beside {@code epochTable}, which should be resolved (qualified). */
    public ResourceTableSql(Dialect dialect, EpochTable epochTable) {
        this.dialect = dialect;
        this.resourceTable = resourceTableOf(dialect, epochTable);
        this.table = resourceTable.render(dialect);
        this.epoch = epochTable.render(dialect);
    }

    /** The resource table's name beside {@code epochTable}: the one rule, used by everything that creates or reads it. */
    public static EpochTable resourceTableOf(Dialect dialect, EpochTable epochTable) {
        String suffix = dialect.quoteIdentifier(SUFFIX); // the suffix folded as the database folds a plain name
        String name = epochTable.storedTable(dialect) + suffix.substring(1, suffix.length() - 1);
        String schema = epochTable.storedSchema(dialect);
        return schema == null ? EpochTable.of(name) : EpochTable.resolved(schema, name);
    }

    public EpochTable resourceTable() {
        return resourceTable;
    }

    /** The rendered, quoted resource table name. */
    public String table() {
        return table;
    }

    /** Creates the resource table when it is missing. */
    public String createTable() {
        return "CREATE TABLE IF NOT EXISTS " + table + " (resource " + EpochSql.resourceType(dialect)
                + " NOT NULL CHECK (resource <> ''), table_schema VARCHAR(128) NOT NULL, table_name VARCHAR(128) NOT NULL,"
                + " PRIMARY KEY (table_schema, table_name, resource))" + EpochSql.tableOptions(dialect);
    }

    /** Checks that the table can be read as the resource table; no row. */
    public String validateTable() {
        return "SELECT resource, table_schema, table_name FROM " + table + " WHERE 1 = 0";
    }

    /**
     * Every mapping: table_schema, table_name, resource, and whether the database still has a table of that schema
     * and name (a renamed or dropped mapped table has none).
     */
    public String selectMap() {
        String present = dialect == Dialect.POSTGRESQL
                ? "pg_catalog.to_regclass(pg_catalog.quote_ident(r.table_schema) || '.' || pg_catalog.quote_ident("
                + "r.table_name)) IS NOT NULL"
                : "EXISTS (SELECT 1 FROM " + (dialect == Dialect.H2 ? "INFORMATION_SCHEMA" : "information_schema")
                + ".TABLES t WHERE t.TABLE_SCHEMA = r.table_schema AND t.TABLE_NAME = r.table_name)";
        return "SELECT r.table_schema, r.table_name, r.resource, " + present + " FROM " + table + " r"
                + " WHERE r.table_name <> ''" + dialect.allRows();
    }

    /** Every row, mappings and declarations: resource, table_schema, table_name, ordered by resource. */
    public String selectAll() {
        return "SELECT resource, table_schema, table_name FROM " + table + " ORDER BY resource, table_schema, table_name"
                + dialect.allRows();
    }

    /**
     * Declares a resource: parameters resource, resource. Inserts nothing when it is declared already (a concurrent
     * declaration may still fail on the primary key: a {@code 23} state means it is declared).
     */
    public String declare() {
        return "INSERT INTO " + table + " (resource, table_schema, table_name) SELECT ?, '', '' FROM " + oneRowSource()
                + " WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE resource " + dialect.op("=")
                + " ? AND table_name = '')";
    }

    /** Maps a table: parameters resource, schema, table. */
    public String map() {
        return "INSERT INTO " + table + " (resource, table_schema, table_name) VALUES (?, ?, ?)";
    }

    /** Removes every mapping of a table: parameters schema, table. */
    public String unmap() {
        return "DELETE FROM " + table + " WHERE table_schema = ? AND table_name = ?";
    }

    /**
     * One row when the resource is known (declared or mapped here, or with a mark in the epoch table): parameter
     * resource, twice. The lease table is asked separately (it may not exist).
     */
    public String known() {
        return "SELECT 1 FROM " + oneRowSource() + " WHERE EXISTS (SELECT 1 FROM " + table + " WHERE resource "
                + dialect.op("=") + " ?) OR EXISTS (SELECT 1 FROM " + epoch + " WHERE resource " + dialect.op("=") + " ?)"
                + dialect.oneRow();
    }

    /** The names of every known resource here and in the epoch table (at most 1,000), for a refusal's suggestions. */
    public String knownNames() {
        return "SELECT resource FROM " + table + " UNION SELECT resource FROM " + epoch + " ORDER BY 1 LIMIT 1000";
    }

    /**
     * One row, the current role and whether that role may change the resource table (insert, update, delete,
     * truncate, drop: a role that can remove a mapping can lift a table's resource), or {@code null} where the driver
     * does not ask (H2, whose in-process users are the application's). PostgreSQL asks
     * {@code has_table_privilege} (owners and superusers included); MariaDB its privilege tables for the current
     * account (global, schema and table grants; privileges held through roles are not seen).
     */
    public String writable() {
        switch (dialect) {
            case POSTGRESQL:
                return "SELECT CAST(current_user AS text), pg_catalog.has_table_privilege(pg_catalog.to_regclass('"
                        + table.replace("'", "''") + "'), 'INSERT, UPDATE, DELETE, TRUNCATE')";
            case MARIADB:
                String grantee = "CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''',"
                        + " SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')";
                String schema = resourceTable.storedSchema(dialect) == null ? "DATABASE()"
                        : "'" + resourceTable.storedSchema(dialect).replace("'", "''") + "'";
                String name = "'" + resourceTable.storedTable(dialect).replace("'", "''") + "'";
                String writes = " AND PRIVILEGE_TYPE IN ('INSERT', 'UPDATE', 'DELETE', 'DROP')";
                return "SELECT CURRENT_USER(), EXISTS (SELECT 1 FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = "
                        + grantee + writes + " UNION ALL SELECT 1 FROM information_schema.SCHEMA_PRIVILEGES WHERE"
                        + " GRANTEE = " + grantee + " AND TABLE_SCHEMA = " + schema + writes
                        + " UNION ALL SELECT 1 FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE = " + grantee
                        + " AND TABLE_SCHEMA = " + schema + " AND TABLE_NAME = " + name + writes + ")";
            default:
                return null;
        }
    }

    /** A table of one row to select constants from, in this dialect. */
    private String oneRowSource() {
        return dialect == Dialect.MARIADB ? "DUAL" : "(VALUES (1)) one_row (x)";
    }
}
