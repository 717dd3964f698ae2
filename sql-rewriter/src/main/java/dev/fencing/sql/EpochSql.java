package dev.fencing.sql;

import java.util.List;

/**
 * Every SQL statement the fence itself sends about the epoch table, per dialect: the one place that knows
 * how a guard locks the epoch row and how an advance raises it.
 *
 * <p>Parameters are always {@code resource} then {@code token}. The epoch table has one row per resource
 * ({@code resource} primary key, {@code epoch} the high-water mark); a missing row means the mark is 0.
 */
public final class EpochSql {
    /** The value the prefix guard fails to cast when the token is not current; its error names this text. */
    public static final String GUARD_FAILURE_MARKER = "fencing_guard_failed";

    private final Dialect dialect;
    private final String table;

    public EpochSql(Dialect dialect, EpochTable epochTable) {
        this.dialect = dialect;
        this.table = epochTable.render(dialect);
    }

    public Dialect dialect() {
        return dialect;
    }

    /** The rendered, quoted epoch table name. */
    public String table() {
        return table;
    }

    /**
     * The guard statement sent ahead of the caller's untouched text, in the same round trip and the same
     * transaction: it share-locks the epoch row when the mark equals the token and otherwise raises an error whose
     * message names {@link #GUARD_FAILURE_MARKER} and why ({@code stale <mark>} when the mark is above the token,
     * {@code behind} when it is below or missing), so nothing after it runs. {@code null} where the dialect has no
     * single round trip for two statements.
     */
    public GuardedSql prefixGuard() {
        if (dialect != Dialect.POSTGRESQL) {
            return null;
        }
        return new GuardedSql("SELECT CAST(COALESCE((SELECT CASE WHEN epoch = ? THEN '1' ELSE '" + GUARD_FAILURE_MARKER
                + " stale ' || epoch END FROM " + table + " WHERE resource = ? AND epoch >= ? " + dialect.rowLockClause()
                + "), '" + GUARD_FAILURE_MARKER + " behind') AS integer)",
                List.of(GuardedSql.Marker.TOKEN, GuardedSql.Marker.RESOURCE, GuardedSql.Marker.TOKEN));
    }

    /**
     * Locks the epoch row when its mark is at least the token and returns that mark; no row means the mark is
     * below the token (or missing) and an advance is due.
     */
    public String lockAtLeast() {
        return "SELECT epoch FROM " + table + " WHERE resource = ? AND epoch >= ? " + dialect.rowLockClause();
    }

    /** Reads the mark without a lock; parameter: resource. Used only to word an error message. */
    public String readMark() {
        return "SELECT epoch FROM " + table + " WHERE resource = ?";
    }

    /**
     * Raises the mark to the token when it is not above it, inserting the row when missing; parameters
     * resource, token (and on some dialects token again: see {@link #advanceBindsTokenTwice()}). One row
     * changed means the mark is now the token and the row is locked exclusively; zero means it is higher.
     * Dialects without an upsert return {@code null} and use {@link #raise()} then {@link #insertFirst()}.
     */
    public String advance() {
        switch (dialect) {
            case POSTGRESQL:
                return "INSERT INTO " + table + " (resource, epoch) VALUES (?, ?) ON CONFLICT (resource) DO UPDATE"
                        + " SET epoch = EXCLUDED.epoch WHERE " + table + ".epoch <= EXCLUDED.epoch";
            default:
                return null;
        }
    }

    /** Raises an existing row: parameters token, resource, token. One row changed: the mark is now the token. */
    public String raise() {
        return "UPDATE " + table + " SET epoch = ? WHERE resource = ? AND epoch <= ?";
    }

    /** Inserts the first row of a resource: parameters resource, token. Fails with a duplicate key if it exists. */
    public String insertFirst() {
        return "INSERT INTO " + table + " (resource, epoch) VALUES (?, ?)";
    }

    /** Creates the epoch table when it is missing. */
    public String createTable() {
        return "CREATE TABLE IF NOT EXISTS " + table
                + " (resource VARCHAR(200) NOT NULL PRIMARY KEY, epoch BIGINT NOT NULL CHECK (epoch > 0))";
    }

    /** A query that fails when the epoch table is missing or lacks its columns. */
    public String validateTable() {
        return "SELECT resource, epoch FROM " + table + " WHERE 1 = 0";
    }
}
