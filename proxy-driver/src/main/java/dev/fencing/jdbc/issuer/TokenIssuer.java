package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.guard.AutoCommitRestore;
import dev.fencing.jdbc.audit.SqlStates;
import dev.fencing.jdbc.config.Settings;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochSql;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.LeaseSql;
import dev.fencing.sql.SessionFenceSql;
import dev.fencing.sql.ResourceName;

import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Hands out leases and fencing tokens from a lease table in the same database as the epoch table (SPEC C7).
 *
 * <p>A new token is one more than the greater of the resource's issued mark and its high-water mark, decided
 * and stored in one transaction that holds the lease row's exclusive lock, so tokens never go backwards or
 * repeat across crashes and restarts, and stay above everything the resource has accepted after a restore.
 * Expiry is decided by the database clock. The issuer talks to the database through the underlying driver (the
 * fencing driver refuses writes to its tables); it keeps one connection, reopened after any failure, and is
 * safe for use by several threads.
 */
public final class TokenIssuer implements AutoCloseable {
    private static final int MAX_NAME = 200;
    private static final long POLL_MILLIS = 100;

    private final String url;
    private final EpochTable epochTable;
    private final EpochTable leaseTable;
    private final IssuerDatabase database;

    private TokenIssuer(String url, Properties properties, EpochTable epochTable, EpochTable leaseTable) {
        this.url = url;
        this.epochTable = epochTable;
        this.leaseTable = leaseTable;
        this.database = new IssuerDatabase(url, properties, epochTable, leaseTable);
    }

    /**
     * An issuer for the database at {@code jdbcUrl}: the underlying driver's URL ({@code jdbc:postgresql:...}) or
     * the application's {@code jdbc:fencing:} URL, whose {@code fencing.table} and {@code fencing.lease.table}
     * settings name the tables (other {@code fencing.*} settings are ignored). Connects lazily.
     */
    public static TokenIssuer forUrl(String jdbcUrl, Properties info) throws SQLException {
        if (jdbcUrl == null || !jdbcUrl.regionMatches(true, 0, "jdbc:", 0, 5)) {
            throw new SQLException("fencing: not a JDBC URL: " + jdbcUrl, FencingSqlState.CONFIGURATION);
        }
        String fencingUrl = Settings.accepts(jdbcUrl) ? jdbcUrl : Settings.PREFIX + jdbcUrl.substring(5);
        Settings settings = Settings.parse(fencingUrl, info);
        return new TokenIssuer(settings.targetUrl(), settings.targetProperties(), settings.epochTable(),
                settings.leaseTable());
    }

    /**
     * The statements that create the epoch table with the database's own protection of its marks (idempotent, so
     * they also add the protection to an existing table), on PostgreSQL the session fence's table and hand-over
     * trigger, and the lease table on {@code dialect}, for a DBA to run.
     */
    public static List<String> createTablesSql(Dialect dialect, EpochTable epochTable, EpochTable leaseTable)
            throws SQLException {
        LeaseSql lease = new LeaseSql(dialect, leaseTable);
        if (!lease.supported()) {
            throw IssuerDatabase.unsupported(dialect);
        }
        EpochSql epoch = new EpochSql(dialect, epochTable);
        List<String> statements = new ArrayList<>();
        statements.add(epoch.createTable());
        statements.addAll(epoch.protect());
        if (dialect == Dialect.POSTGRESQL && SessionFenceSql.sessionTableOf(epochTable) != null) {
            // the session fence (fencing.guard=session): its table and the hand-over of every raise of a mark
            statements.addAll(new SessionFenceSql(epochTable).create());
        }
        statements.add(lease.createTable());
        // which resources exist and which tables they own (SPEC C11): fencing declare, fencing map
        statements.add(new dev.fencing.sql.ResourceTableSql(dialect, epochTable).createTable());
        return List.copyOf(statements);
    }

    /** The underlying driver's URL this issuer connects to. */
    public String url() {
        return url;
    }

    /** The epoch table's configured name. */
    public EpochTable epochTable() {
        return epochTable;
    }

    /** The lease table's configured name. */
    public EpochTable leaseTable() {
        return leaseTable;
    }

    /**
     * Creates the epoch table and the lease table when missing, and the epoch table's protection, under the
     * names located when the issuer connected; returns the statements run.
     */
    public List<String> createTables() throws SQLException {
        return database.inTransaction(rows -> {
            List<String> statements = createTablesSql(rows.epochSql().dialect(), rows.epochTable(), rows.leaseTable());
            // one session at a time replaces the shared protection function, as the driver's fencing.schema=create
            dev.fencing.jdbc.guard.EpochSchema.createShared(rows.connection(), rows.epochSql().dialect(), statements,
                    rows.connection().getAutoCommit());
            return statements;
        });
    }

    /** {@link #acquire(String, String, Duration, AcquireOptions)} with {@link AcquireOptions#DEFAULT}. */
    public Lease acquire(String resource, String holder, Duration ttl) throws SQLException {
        return acquire(resource, holder, ttl, AcquireOptions.DEFAULT);
    }

    /**
     * Acquires the lease on {@code resource} for {@code holder} for {@code ttl}. A free or expired lease gets a
     * new token; the holder's own live lease is extended and keeps its token. When another holder's lease is
     * live, waits up to {@code options.maxWait()} for it to end, then throws {@link LeaseUnavailableException}.
     */
    public Lease acquire(String resource, String holder, Duration ttl, AcquireOptions options) throws SQLException {
        ResourceName.require(resource);
        checkName("holder", holder);
        long ttlMillis = ttlMillis(ttl);
        long deadline = System.nanoTime() + options.maxWait().toNanos();
        while (true) {
            try {
                return database.inTransaction(rows -> acquireOnce(rows, resource, holder, ttlMillis, options));
            } catch (LeaseUnavailableException busy) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw busy;
                }
                sleep(Math.min(POLL_MILLIS, Math.max(1, left / 1_000_000)));
            }
        }
    }

    private static Lease acquireOnce(LeaseRows rows, String resource, String holder, long ttlMillis,
                                     AcquireOptions options) throws SQLException {
        rows.insertMissing(resource);
        LeaseRows.Row row = rows.lock(resource);
        if (row == null) {
            throw new SQLException("fencing: the lease row of '" + resource + "' vanished while acquiring; try again",
                    SqlStates.SERIALIZATION_FAILURE);
        }
        long issued = row.issued();
        long mark = rows.readMark(resource);
        // A lease whose token is below the mark (the lease table was restored) can never write again: it is over.
        boolean live = row.live() && issued >= mark;
        if (live && holder.equals(row.holder())) {
            if (!rows.extend(resource, holder, issued, ttlMillis)) {
                throw new SQLException("fencing: could not extend the lease row of '" + resource + "'; try again",
                        SqlStates.SERIALIZATION_FAILURE);
            }
            if (options.revoke()) {
                rows.establish(resource, issued);
            }
            return new Lease(resource, holder, issued, rows.readExpiry(resource));
        }
        if (live && !options.force()) {
            throw new LeaseUnavailableException(resource, row.holder(), row.expiresAt());
        }
        long base = Math.max(issued, mark);
        if (base == Long.MAX_VALUE) {
            throw new SQLException("fencing: resource '" + resource + "' has used every token up to Long.MAX_VALUE",
                    FencingSqlState.CONFIGURATION);
        }
        long token = base + 1;
        rows.grant(resource, holder, token, ttlMillis);
        if (options.revoke()) {
            rows.establish(resource, token);
        }
        return new Lease(resource, holder, token, rows.readExpiry(resource));
    }

    /**
     * Extends the lease for another {@code ttl} from now (database clock). Throws {@link LeaseLostException} when
     * the holder no longer has it: released, taken by another holder, or a newer token reached the resource.
     * An expired lease that nobody acquired since is still the holder's and is renewed.
     */
    public Lease renew(Lease lease, Duration ttl) throws SQLException {
        return renew(lease, ttl, Duration.ZERO);
    }

    /**
     * {@link #renew(Lease, Duration)}, with every wait for the database's answer bounded by {@code within} (zero: by
     * the connection's own bound only, the URL's {@code socketTimeout} if any): a renewal that cannot finish within it
     * fails with a connection error ({@code 08xxx}), and the holder must take the lease for lost once its expiry has
     * passed. {@code fencing exec} gives each renewal the time left before it must stop its command. Opening a new
     * connection (after a failure) is bounded by the driver's connect and login timeouts, not by {@code within}.
     */
    public Lease renew(Lease lease, Duration ttl, Duration within) throws SQLException {
        ResourceName.require(lease.resource());
        long ttlMillis = ttlMillis(ttl);
        if (within == null || within.isNegative()) {
            throw new IllegalArgumentException("within must be zero or positive, was " + within);
        }
        long boundMillis = within.isZero() ? 0 : Math.max(1, within.toMillis());
        return database.inTransaction(rows -> {
            long mark = rows.readMark(lease.resource());
            if (mark > lease.token()) {
                throw new LeaseLostException(lease.resource(), "fencing: lease on '" + lease.resource() + "' lost: the resource has"
                        + " accepted token " + mark + ", newer than " + lease.token());
            }
            // The extension commits on its own, as one statement: a holder paused (GC, SIGSTOP) between two
            // statements of a renewal must never keep the lease row locked against the next owner.
            boolean extended;
            rows.connection().setAutoCommit(true);
            try {
                extended = rows.extend(lease.resource(), lease.holder(), lease.token(), ttlMillis);
            } catch (SQLException | RuntimeException | Error failure) {
                // a connection lost while extending: the extension's own error (outcome unknown), not the closed
                // connection's at restoring the mode after it
                AutoCommitRestore.restore(rows.connection(), false, failure);
                throw failure;
            }
            AutoCommitRestore.restore(rows.connection(), false, null);
            if (!extended) {
                throw rows.lost(lease);
            }
            return new Lease(lease.resource(), lease.holder(), lease.token(), rows.readExpiry(lease.resource()));
        }, boundMillis);
    }

    /** Frees the lease, keeping the issued mark; false when the holder no longer had it. */
    public boolean release(Lease lease) throws SQLException {
        ResourceName.require(lease.resource());
        return database.inTransaction(rows -> rows.release(lease.resource(), lease.holder(), lease.token()));
    }

    /**
     * Every resource in the epoch table or the lease table, with its high-water mark, issued mark, holder and
     * expiry, and a warning where a restore left the issued mark below the mark or a resource without a lease row.
     */
    public List<LeaseStatus> status() throws SQLException {
        return database.inTransaction(LeaseRows::status);
    }

    /**
     * Repairs what a restore of either table from an older backup leaves behind, never lowering anything: raises
     * an issued mark below the high-water mark to it (freeing that lease, whose token can no longer write), and
     * with {@code adoptMissing} gives every resource of the epoch table without a lease row one at its high-water
     * mark (which puts it under the issuer: tokens above the mark are then refused, so do not adopt resources fed
     * by an external coordinator).
     */
    public List<Repair> reconcile(boolean adoptMissing) throws SQLException {
        return database.inTransaction(rows -> {
            List<Repair> repairs = new ArrayList<>();
            for (LeaseStatus status : rows.status()) {
                long mark = status.highWaterMark();
                if (status.underIssuer() && status.issued() < mark) {
                    if (rows.raiseIssued(status.resource(), mark)) {
                        repairs.add(new Repair(status.resource(), status.issued(), mark));
                    }
                } else if (!status.underIssuer() && adoptMissing) {
                    rows.insertIssued(status.resource(), mark);
                    repairs.add(new Repair(status.resource(), -1, mark));
                }
            }
            return repairs;
        });
    }

    /**
     * Puts each table under enforcement for {@code resource} (PostgreSQL, MariaDB): from then on the database refuses its
     * changes without a current token for the resource, from any client (see {@code docs/enforcement.md}). A
     * partitioned table's partitions are enforced with it (PostgreSQL). Returns the tables enforced, qualified. Run it as the
     * role that owns the fence's tables: the trigger's function runs with its rights.
     *
     * @throws IllegalArgumentException when a table does not exist, is one of the fence's own, or is enforced for
     *                                  another resource
     */
    public List<String> enforce(List<String> tables, String resource) throws SQLException {
        return database.inTransaction(rows -> {
            List<String> enforced = Enforcement.of(rows).enforce(tables, resource);
            resourceTable(rows).declare(List.of(resource)); // enforced tables' resource is one a driver may write
            return enforced;
        });
    }

    /** Declares each resource, so a fenced write may start it (SPEC C11); declaring one twice changes nothing. */
    public void declare(List<String> resources) throws SQLException {
        database.inTransaction(rows -> {
            resourceTable(rows).declare(resources);
            return null;
        });
    }

    /** Maps each table (and its partitions) to {@code resource}; returns the tables, qualified. */
    public List<String> map(List<String> tables, String resource) throws SQLException {
        return database.inTransaction(rows -> resourceTable(rows).map(tables, resource));
    }

    /** Removes the mappings of each table; returns the tables, qualified. */
    public List<String> unmap(List<String> tables) throws SQLException {
        return database.inTransaction(rows -> resourceTable(rows).unmap(tables));
    }

    /** Every declared resource and mapped table beside this issuer's epoch table. */
    public List<ResourceEntry> resources() throws SQLException {
        return database.inTransaction(rows -> resourceTable(rows).list().stream()
                .map(e -> new ResourceEntry(e.resource(), e.table())).toList());
    }

    private static dev.fencing.jdbc.guard.ResourceTable resourceTable(LeaseRows rows) {
        return new dev.fencing.jdbc.guard.ResourceTable(rows.connection(), rows.epochSql().dialect(), rows.epochTable());
    }

    /** Takes each table out of enforcement; returns the tables, qualified. */
    public List<String> unenforce(List<String> tables) throws SQLException {
        return database.inTransaction(rows -> Enforcement.of(rows).remove(tables));
    }

    /** Every table under enforcement beside this issuer's epoch table, checked (see {@link EnforcedTable}). */
    public List<EnforcedTable> enforced() throws SQLException {
        return database.inTransaction(rows -> Enforcement.of(rows).list());
    }

    @Override
    public void close() throws SQLException {
        database.close();
    }

    /** A holder name: 1 to 200 characters, bound as a parameter (resource names follow {@link ResourceName}). */
    private static void checkName(String what, String value) {
        if (value == null || value.isBlank() || value.length() > MAX_NAME) {
            throw new IllegalArgumentException(what + " must be 1 to " + MAX_NAME + " characters, was "
                    + (value == null ? "missing" : "'" + value + "'"));
        }
    }

    private static long ttlMillis(Duration ttl) {
        if (ttl == null || ttl.toMillis() <= 0) {
            throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
        }
        return ttl.toMillis();
    }

    private static void sleep(long millis) throws SQLException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("fencing: interrupted while waiting for the lease", e);
        }
    }
}
