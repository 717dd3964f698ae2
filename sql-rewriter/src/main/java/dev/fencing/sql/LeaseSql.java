package dev.fencing.sql;

/**
 * Every SQL statement about the issuer's lease table, per dialect: the one place that knows how the issuer and
 * the guard's never-issued check read, lock and change it, and how they read the database clock.
 *
 * <p>The lease table has one row per resource under the issuer: {@code issued} (the greatest token handed out,
 * 0 before the first), the current {@code holder} (null when free), {@code acquired_at} and {@code expires_at}
 * in database time (UTC on MariaDB and MySQL, whose {@code DATETIME} has no zone). A row is never deleted; a
 * released lease keeps its issued mark. H2, PostgreSQL, MariaDB and MySQL are supported ({@link #supported()}).
 */
public final class LeaseSql {
    private final Dialect dialect;
    private final EpochTable leaseTable;
    private final String table;

    public LeaseSql(Dialect dialect, EpochTable leaseTable) {
        this.dialect = dialect;
        this.leaseTable = leaseTable;
        this.table = leaseTable.render(dialect);
    }

    /** Whether the issuer runs on this dialect (H2, PostgreSQL, MariaDB and MySQL). */
    public boolean supported() {
        return dialect != Dialect.GENERIC;
    }

    public Dialect dialect() {
        return dialect;
    }

    /** The rendered, quoted lease table name. */
    public String table() {
        return table;
    }

    /**
     * The database's current time; on PostgreSQL the wall clock, not the transaction's start; on MariaDB and MySQL
     * in UTC, so sessions with different {@code time_zone} settings agree.
     */
    private String now() {
        switch (dialect) {
            case POSTGRESQL:
                return "clock_timestamp()";
            case MARIADB:
                return "UTC_TIMESTAMP(6)";
            default:
                return "CURRENT_TIMESTAMP";
        }
    }

    /** The database's current time plus a number of milliseconds bound as a parameter. */
    private String nowPlusMillis() {
        switch (dialect) {
            case POSTGRESQL:
                return "clock_timestamp() + CAST(? AS bigint) * INTERVAL '1 millisecond'";
            case MARIADB:
                return "UTC_TIMESTAMP(6) + INTERVAL CAST(? AS SIGNED) * 1000 MICROSECOND";
            default:
                return "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
        }
    }

    /** Whether the times this table holds are UTC without a zone (MariaDB and MySQL {@code DATETIME}). */
    public boolean timesInUtc() {
        return dialect == Dialect.MARIADB;
    }

    /** Creates the lease table when it is missing. */
    public String createTable() {
        String time = dialect == Dialect.MARIADB ? "DATETIME(6)" : "TIMESTAMP WITH TIME ZONE";
        return "CREATE TABLE IF NOT EXISTS " + table + " (resource " + EpochSql.resourceType(dialect)
                + " NOT NULL PRIMARY KEY, issued BIGINT NOT NULL CHECK (issued >= 0),"
                + " holder VARCHAR(200), acquired_at " + time + ", expires_at " + time + ")"
                + EpochSql.tableOptions(dialect);
    }

    /** The parameters of {@link EpochSql#exactnessCheck} for this lease table (resolved, so qualified). */
    public java.util.List<String> exactnessParameters() {
        return java.util.List.of(leaseTable.storedSchema(dialect), leaseTable.storedTable(dialect));
    }

    /** Makes an existing lease table compare resource names exactly and transactional. */
    public String makeExact() {
        return EpochSql.makeExact(dialect, table);
    }

    /**
     * A query returning one row with a positive count when the lease table exists, never failing when it does
     * not (a failed statement would abort a PostgreSQL transaction); parameters schema (or null), table.
     * {@code null} where the issuer is not supported.
     */
    public String tableExists() {
        switch (dialect) {
            case POSTGRESQL:
                return "SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = COALESCE(CAST(? AS text), current_schema()) AND c.relname = ?";
            case H2:
                return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES"
                        + " WHERE TABLE_SCHEMA = COALESCE(CAST(? AS VARCHAR), CURRENT_SCHEMA) AND TABLE_NAME = ?";
            case MARIADB:
                return "SELECT COUNT(*) FROM information_schema.TABLES"
                        + " WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?" + dialect.oneRow();
            default:
                return null;
        }
    }

    /** The schema parameter of {@link #tableExists()}, as the database stores it; null when unqualified. */
    public String tableExistsSchema() {
        return leaseTable.storedSchema(dialect);
    }

    /** The table parameter of {@link #tableExists()}, as the database stores it. */
    public String tableExistsName() {
        return leaseTable.storedTable(dialect);
    }

    /**
     * The guard's never-issued check: reads the issued mark with a row lock (shared where the database has
     * them), so the check and the epoch advance after it are one transaction's view; parameter resource.
     */
    public String lockIssued() {
        return "SELECT issued FROM " + table + " WHERE resource " + dialect.op("=") + " ?" + dialect.oneRow() + " "
                + dialect.rowLockClause();
    }

    /** Inserts a free row with issued mark 0 when the resource has none; parameter resource. */
    public String insertMissing() {
        if (dialect == Dialect.POSTGRESQL) {
            return "INSERT INTO " + table + " (resource, issued) VALUES (?, 0) ON CONFLICT (resource) DO NOTHING";
        }
        if (dialect == Dialect.MARIADB) {
            return "INSERT INTO " + table + " (resource, issued) VALUES (?, 0) ON DUPLICATE KEY UPDATE resource = resource";
        }
        return "INSERT INTO " + table + " (resource, issued) VALUES (?, 0)";
    }

    /** Inserts a free row with a given issued mark (reconcile adopting a resource); parameters resource, issued. */
    public String insertIssued() {
        return "INSERT INTO " + table + " (resource, issued) VALUES (?, ?)";
    }

    /**
     * Locks a resource's row exclusively and returns issued, holder, expires_at and whether the lease is live
     * (1) or free or expired (0) by the database clock; parameter resource.
     */
    public String lockRow() {
        return "SELECT issued, holder, expires_at, CASE WHEN holder IS NOT NULL AND expires_at > " + now()
                + " THEN 1 ELSE 0 END FROM " + table + " WHERE resource = ? FOR UPDATE";
    }

    /** Hands out a token: parameters issued, holder, ttl millis, resource. */
    public String grant() {
        return "UPDATE " + table + " SET issued = ?, holder = ?, acquired_at = " + now() + ", expires_at = "
                + nowPlusMillis() + " WHERE resource = ?";
    }

    /**
     * Extends a lease that the holder still has (same holder, no token issued since); parameters ttl millis,
     * resource, holder, token. One row changed: extended; zero: the lease is lost.
     */
    public String extend() {
        return "UPDATE " + table + " SET expires_at = " + nowPlusMillis()
                + " WHERE resource = ? AND holder = ? AND issued = ?";
    }

    /** Frees a lease the holder still has, keeping the issued mark; parameters resource, holder, token. */
    public String release() {
        return "UPDATE " + table + " SET holder = NULL, expires_at = NULL WHERE resource = ? AND holder = ? AND issued = ?";
    }

    /**
     * Raises the issued mark to a value, never lowering it, and frees the lease: its holder's token is below the
     * value, so it can never write again. Parameters value, resource, value.
     */
    public String raiseIssued() {
        return "UPDATE " + table + " SET issued = ?, holder = NULL, expires_at = NULL WHERE resource = ? AND issued < ?";
    }

    /** Reads a resource's expiry; parameter resource. */
    public String readExpiry() {
        return "SELECT expires_at FROM " + table + " WHERE resource = ?";
    }

    /** Every row with its liveness by the database clock: resource, issued, holder, expires_at, live (1 or 0). */
    public String readAll() {
        return "SELECT resource, issued, holder, expires_at, CASE WHEN holder IS NOT NULL AND expires_at > " + now()
                + " THEN 1 ELSE 0 END FROM " + table + " ORDER BY resource";
    }
}
