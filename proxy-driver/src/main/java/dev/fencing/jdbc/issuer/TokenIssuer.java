package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.internal.EpochAdvance;
import dev.fencing.jdbc.internal.FenceTables;
import dev.fencing.jdbc.internal.H2Durability;
import dev.fencing.jdbc.internal.Settings;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochSql;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.LeaseSql;
import dev.fencing.sql.SessionFenceSql;
import dev.fencing.sql.ResourceName;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

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
    private final Properties properties;
    private final EpochTable epochTable;
    private final EpochTable leaseTable;
    private final ReentrantLock lock = new ReentrantLock();
    private Connection connection;
    /** The tables as located when the connection opened (qualified), and the SQL that names them so. */
    private EpochTable locatedEpoch;
    private EpochTable locatedLease;
    private EpochSql epochSql;
    private LeaseSql leaseSql;

    private TokenIssuer(String url, Properties properties, EpochTable epochTable, EpochTable leaseTable) {
        this.url = url;
        this.properties = properties;
        this.epochTable = epochTable;
        this.leaseTable = leaseTable;
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
            throw unsupported(dialect);
        }
        EpochSql epoch = new EpochSql(dialect, epochTable);
        List<String> statements = new ArrayList<>();
        statements.add(epoch.createTable());
        statements.addAll(epoch.protect());
        if (dialect == Dialect.POSTGRESQL
                && epochTable.storedTable(dialect).length() + SessionFenceSql.SUFFIX.length() <= 63) {
            // the session fence (fencing.guard=session): its table and the hand-over of every raise of a mark
            statements.addAll(new SessionFenceSql(epochTable).create());
        }
        statements.add(lease.createTable());
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
        return inTransaction(c -> {
            List<String> statements = createTablesSql(epochSql.dialect(), locatedEpoch, locatedLease);
            try (Statement s = c.createStatement()) {
                for (String sql : statements) {
                    s.execute(sql);
                }
            }
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
                return inTransaction(c -> acquireOnce(c, resource, holder, ttlMillis, options));
            } catch (LeaseUnavailableException busy) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw busy;
                }
                sleep(Math.min(POLL_MILLIS, Math.max(1, left / 1_000_000)));
            }
        }
    }

    private Lease acquireOnce(Connection c, String resource, String holder, long ttlMillis, AcquireOptions options)
            throws SQLException {
        insertMissingRow(c, resource);
        long issued;
        String current;
        Instant expiresAt;
        boolean live;
        try (PreparedStatement row = c.prepareStatement(leaseSql.lockRow())) {
            row.setString(1, resource);
            try (ResultSet rs = row.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("fencing: the lease row of '" + resource + "' vanished while acquiring");
                }
                issued = rs.getLong(1);
                current = rs.getString(2);
                expiresAt = instant(rs, 3);
                live = rs.getInt(4) == 1;
            }
        }
        long mark = readMark(c, resource);
        // A lease whose token is below the mark (the lease table was restored) can never write again: it is over.
        live = live && issued >= mark;
        if (live && holder.equals(current)) {
            if (!extend(c, resource, holder, issued, ttlMillis)) {
                throw new SQLException("fencing: could not extend the lease row of '" + resource + "'");
            }
            if (options.revoke()) {
                establish(c, resource, issued);
            }
            return new Lease(resource, holder, issued, readExpiry(c, resource));
        }
        if (live && !options.force()) {
            throw new LeaseUnavailableException(resource, current, expiresAt);
        }
        long base = Math.max(issued, mark);
        if (base == Long.MAX_VALUE) {
            throw new SQLException("fencing: resource '" + resource + "' has used every token up to Long.MAX_VALUE",
                    FencingSqlState.CONFIGURATION);
        }
        long token = base + 1;
        try (PreparedStatement grant = c.prepareStatement(leaseSql.grant())) {
            grant.setLong(1, token);
            grant.setString(2, holder);
            grant.setLong(3, ttlMillis);
            grant.setString(4, resource);
            grant.executeUpdate();
        }
        if (options.revoke()) {
            establish(c, resource, token);
        }
        return new Lease(resource, holder, token, readExpiry(c, resource));
    }

    /**
     * Extends the lease for another {@code ttl} from now (database clock). Throws {@link LeaseLostException} when
     * the holder no longer has it: released, taken by another holder, or a newer token reached the resource.
     * An expired lease that nobody acquired since is still the holder's and is renewed.
     */
    public Lease renew(Lease lease, Duration ttl) throws SQLException {
        ResourceName.require(lease.resource());
        long ttlMillis = ttlMillis(ttl);
        return inTransaction(c -> {
            long mark = readMark(c, lease.resource());
            if (mark > lease.token()) {
                throw new LeaseLostException("fencing: lease on '" + lease.resource() + "' lost: the resource has"
                        + " accepted token " + mark + ", newer than " + lease.token());
            }
            // The extension commits on its own, as one statement: a holder paused (GC, SIGSTOP) between two
            // statements of a renewal must never keep the lease row locked against the next owner.
            boolean extended;
            c.setAutoCommit(true);
            try {
                extended = extend(c, lease.resource(), lease.holder(), lease.token(), ttlMillis);
            } finally {
                c.setAutoCommit(false);
            }
            if (!extended) {
                throw lost(c, lease);
            }
            return new Lease(lease.resource(), lease.holder(), lease.token(), readExpiry(c, lease.resource()));
        });
    }

    /** Frees the lease, keeping the issued mark; false when the holder no longer had it. */
    public boolean release(Lease lease) throws SQLException {
        ResourceName.require(lease.resource());
        return inTransaction(c -> {
            try (PreparedStatement release = c.prepareStatement(leaseSql.release())) {
                release.setString(1, lease.resource());
                release.setString(2, lease.holder());
                release.setLong(3, lease.token());
                return release.executeUpdate() == 1;
            }
        });
    }

    /**
     * Every resource in the epoch table or the lease table, with its high-water mark, issued mark, holder and
     * expiry, and a warning where a restore left the issued mark below the mark or a resource without a lease row.
     */
    public List<LeaseStatus> status() throws SQLException {
        return inTransaction(this::readStatus);
    }

    /**
     * Repairs what a restore of either table from an older backup leaves behind, never lowering anything: raises
     * an issued mark below the high-water mark to it (freeing that lease, whose token can no longer write), and
     * with {@code adoptMissing} gives every resource of the epoch table without a lease row one at its high-water
     * mark (which puts it under the issuer: tokens above the mark are then refused, so do not adopt resources fed
     * by an external coordinator).
     */
    public List<Repair> reconcile(boolean adoptMissing) throws SQLException {
        return inTransaction(c -> {
            List<Repair> repairs = new ArrayList<>();
            for (LeaseStatus status : readStatus(c)) {
                long mark = status.highWaterMark();
                if (status.underIssuer() && status.issued() < mark) {
                    try (PreparedStatement raise = c.prepareStatement(leaseSql.raiseIssued())) {
                        raise.setLong(1, mark);
                        raise.setString(2, status.resource());
                        raise.setLong(3, mark);
                        if (raise.executeUpdate() == 1) {
                            repairs.add(new Repair(status.resource(), status.issued(), mark));
                        }
                    }
                } else if (!status.underIssuer() && adoptMissing) {
                    try (PreparedStatement insert = c.prepareStatement(leaseSql.insertIssued())) {
                        insert.setString(1, status.resource());
                        insert.setLong(2, mark);
                        insert.executeUpdate();
                        repairs.add(new Repair(status.resource(), -1, mark));
                    }
                }
            }
            return repairs;
        });
    }

    @Override
    public void close() throws SQLException {
        lock.lock();
        try {
            if (connection != null) {
                connection.close();
            }
        } finally {
            connection = null;
            lock.unlock();
        }
    }

    // ---- steps ----------------------------------------------------------------------------------------------

    private List<LeaseStatus> readStatus(Connection c) throws SQLException {
        Map<String, Long> marks = new TreeMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT resource, epoch FROM " + epochSql.table())) {
            while (rs.next()) {
                marks.put(rs.getString(1), rs.getLong(2));
            }
        }
        Map<String, LeaseStatus> all = new TreeMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(leaseSql.readAll())) {
            while (rs.next()) {
                String resource = rs.getString(1);
                long issued = rs.getLong(2);
                long mark = marks.getOrDefault(resource, 0L);
                List<String> warnings = issued < mark ? List.of("issued mark " + issued + " is below the high-water"
                        + " mark " + mark + " (lease table restored from an older backup?): run reconcile")
                        : List.of();
                all.put(resource, new LeaseStatus(resource, mark, issued, rs.getString(3),
                        instant(rs, 4), rs.getInt(5) == 1, warnings));
            }
        }
        for (Map.Entry<String, Long> mark : marks.entrySet()) {
            all.computeIfAbsent(mark.getKey(), resource -> new LeaseStatus(resource, mark.getValue(), -1, null, null,
                    false, List.of("no lease row: tokens above the high-water mark are not checked (fed by an"
                    + " external coordinator, or the lease table was restored from before its first acquire:"
                    + " reconcile --adopt puts it under the issuer)")));
        }
        return new ArrayList<>(all.values());
    }

    /** Gives the resource a free lease row when it has none, in its own committed transaction. */
    private void insertMissingRow(Connection c, String resource) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement(leaseSql.insertMissing())) {
            insert.setString(1, resource);
            insert.executeUpdate();
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                throw e;
            }
        }
    }

    private boolean extend(Connection c, String resource, String holder, long token, long ttlMillis)
            throws SQLException {
        try (PreparedStatement extend = c.prepareStatement(leaseSql.extend())) {
            extend.setLong(1, ttlMillis);
            extend.setString(2, resource);
            extend.setString(3, holder);
            extend.setLong(4, token);
            return extend.executeUpdate() == 1;
        }
    }

    private LeaseLostException lost(Connection c, Lease lease) throws SQLException {
        try (PreparedStatement row = c.prepareStatement(leaseSql.lockRow())) {
            row.setString(1, lease.resource());
            try (ResultSet rs = row.executeQuery()) {
                String now = !rs.next() ? "it has no lease row"
                        : rs.getString(2) == null ? "it was released (issued mark " + rs.getLong(1) + ")"
                        : "it is held by '" + rs.getString(2) + "' with token " + rs.getLong(1);
                return new LeaseLostException("fencing: lease of '" + lease.holder() + "' on '" + lease.resource()
                        + "' with token " + lease.token() + " is lost: " + now);
            }
        }
    }

    /** Immediate revocation: raises the resource's high-water mark to {@code token} in this transaction. */
    private void establish(Connection c, String resource, long token) throws SQLException {
        EpochAdvance.establish(c, epochSql, resource, token);
    }

    private long readMark(Connection c, String resource) throws SQLException {
        return EpochAdvance.readMark(c, epochSql, resource);
    }

    private Instant readExpiry(Connection c, String resource) throws SQLException {
        try (PreparedStatement read = c.prepareStatement(leaseSql.readExpiry())) {
            read.setString(1, resource);
            try (ResultSet rs = read.executeQuery()) {
                return rs.next() ? instant(rs, 1) : null;
            }
        }
    }

    // ---- connection and transaction -------------------------------------------------------------------------

    /** One unit of work in one transaction of the issuer's connection. */
    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Runs {@code work} in one transaction; any failure rolls back and drops the connection (reopened next time). */
    private <T> T inTransaction(Work<T> work) throws SQLException {
        lock.lock();
        try {
            Connection c = connection();
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (LeaseUnavailableException | LeaseLostException expected) {
                c.rollback();
                throw expected;
            } catch (SQLException | RuntimeException e) {
                connection = null;
                try {
                    c.rollback();
                    c.close();
                } catch (SQLException closeFailure) {
                    e.addSuppressed(closeFailure);
                }
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            Connection c = DriverManager.getConnection(url, properties);
            try {
                Dialect dialect = Dialect.of(c.getMetaData().getDatabaseProductName(), url);
                if (!new LeaseSql(dialect, leaseTable).supported()) {
                    throw unsupported(dialect);
                }
                if (dialect == Dialect.H2) {
                    H2Durability.require(c);
                }
                // Located once per connection, qualified: no search_path or schema set later moves them.
                locatedEpoch = FenceTables.locate(c, dialect, epochTable);
                locatedLease = FenceTables.locate(c, dialect, leaseTable);
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                epochSql = new EpochSql(dialect, locatedEpoch);
                leaseSql = new LeaseSql(dialect, locatedLease);
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
            connection = c;
        }
        return connection;
    }

    private static SQLException unsupported(Dialect dialect) {
        return new SQLException("fencing: the token issuer supports H2, PostgreSQL, MariaDB and MySQL, not " + dialect,
                FencingSqlState.CONFIGURATION);
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

    /** A time column as an instant; MariaDB's zone-less UTC {@code DATETIME} read as UTC, whatever the JVM's zone. */
    private Instant instant(ResultSet rs, int column) throws SQLException {
        Timestamp timestamp = leaseSql.timesInUtc()
                ? rs.getTimestamp(column, java.util.Calendar.getInstance(java.util.TimeZone.getTimeZone("UTC")))
                : rs.getTimestamp(column);
        return timestamp == null ? null : timestamp.toInstant();
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
