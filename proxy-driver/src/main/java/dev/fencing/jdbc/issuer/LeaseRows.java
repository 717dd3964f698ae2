package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.guard.EpochAdvance;
import dev.fencing.sql.EpochSql;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.LeaseSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.TreeMap;

/**
 * The issuer's steps on the rows of one connection's located lease and epoch tables, each inside the caller's
 * transaction: lock, grant, extend, release and read a lease row, read and raise a high-water mark, list every
 * resource with its warnings.
 */
final class LeaseRows {
    private final Connection connection;
    private final EpochSql epochSql;
    private final LeaseSql leaseSql;
    private final EpochTable epochTable;
    private final EpochTable leaseTable;

    LeaseRows(Connection connection, EpochSql epochSql, LeaseSql leaseSql, EpochTable epochTable,
              EpochTable leaseTable) {
        this.connection = connection;
        this.epochSql = epochSql;
        this.leaseSql = leaseSql;
        this.epochTable = epochTable;
        this.leaseTable = leaseTable;
    }

    Connection connection() {
        return connection;
    }

    EpochSql epochSql() {
        return epochSql;
    }

    /** The epoch table as located (qualified) when the connection opened. */
    EpochTable epochTable() {
        return epochTable;
    }

    /** The lease table as located (qualified) when the connection opened. */
    EpochTable leaseTable() {
        return leaseTable;
    }

    /** A lease row as locked for an acquisition. */
    record Row(long issued, String holder, Instant expiresAt, boolean live) {
    }

    /** Locks the resource's lease row; {@code null} when it has none. */
    Row lock(String resource) throws SQLException {
        try (PreparedStatement row = connection.prepareStatement(leaseSql.lockRow())) {
            row.setString(1, resource);
            try (ResultSet rs = row.executeQuery()) {
                return rs.next() ? new Row(rs.getLong(1), rs.getString(2), instant(rs, 3), rs.getInt(4) == 1) : null;
            }
        }
    }

    /** Gives the resource a free lease row when it has none, in its own committed transaction. */
    void insertMissing(String resource) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(leaseSql.insertMissing())) {
            insert.setString(1, resource);
            insert.executeUpdate();
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                throw e;
            }
        }
    }

    /** Grants the lease to {@code holder} with {@code token} for {@code ttlMillis} from now (database clock). */
    void grant(String resource, String holder, long token, long ttlMillis) throws SQLException {
        try (PreparedStatement grant = connection.prepareStatement(leaseSql.grant())) {
            grant.setLong(1, token);
            grant.setString(2, holder);
            grant.setLong(3, ttlMillis);
            grant.setString(4, resource);
            grant.executeUpdate();
        }
    }

    /** Extends the holder's lease at {@code token}; false when the row is no longer the holder's at that token. */
    boolean extend(String resource, String holder, long token, long ttlMillis) throws SQLException {
        try (PreparedStatement extend = connection.prepareStatement(leaseSql.extend())) {
            extend.setLong(1, ttlMillis);
            extend.setString(2, resource);
            extend.setString(3, holder);
            extend.setLong(4, token);
            return extend.executeUpdate() == 1;
        }
    }

    /** Frees the holder's lease at {@code token}, keeping the issued mark; false when it was not the holder's. */
    boolean release(String resource, String holder, long token) throws SQLException {
        try (PreparedStatement release = connection.prepareStatement(leaseSql.release())) {
            release.setString(1, resource);
            release.setString(2, holder);
            release.setLong(3, token);
            return release.executeUpdate() == 1;
        }
    }

    /** The exception saying why {@code lease} is lost, from its row as it is now. */
    LeaseLostException lost(Lease lease) throws SQLException {
        Row row = lock(lease.resource());
        String now = row == null ? "it has no lease row"
                : row.holder() == null ? "it was released (issued mark " + row.issued() + ")"
                : "it is held by '" + row.holder() + "' with token " + row.issued();
        return new LeaseLostException(lease.resource(), "fencing: lease of '" + lease.holder() + "' on '"
                + lease.resource() + "' with token " + lease.token() + " is lost: " + now);
    }

    /** Immediate revocation: raises the resource's high-water mark to {@code token} in this transaction. */
    void establish(String resource, long token) throws SQLException {
        EpochAdvance.establish(connection, epochSql, resource, token);
    }

    long readMark(String resource) throws SQLException {
        return EpochAdvance.readMark(connection, epochSql, resource);
    }

    Instant readExpiry(String resource) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(leaseSql.readExpiry())) {
            read.setString(1, resource);
            try (ResultSet rs = read.executeQuery()) {
                return rs.next() ? instant(rs, 1) : null;
            }
        }
    }

    /** Raises an issued mark below {@code mark} to it (freeing the lease); false when it was not below. */
    boolean raiseIssued(String resource, long mark) throws SQLException {
        try (PreparedStatement raise = connection.prepareStatement(leaseSql.raiseIssued())) {
            raise.setLong(1, mark);
            raise.setString(2, resource);
            raise.setLong(3, mark);
            return raise.executeUpdate() == 1;
        }
    }

    /** Gives a resource without a lease row one with {@code mark} issued. */
    void insertIssued(String resource, long mark) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(leaseSql.insertIssued())) {
            insert.setString(1, resource);
            insert.setLong(2, mark);
            insert.executeUpdate();
        }
    }

    /** Every resource of either table with its marks, holder, expiry and warnings, by name. */
    List<LeaseStatus> status() throws SQLException {
        Map<String, Long> marks = new TreeMap<>();
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT resource, epoch FROM " + epochSql.table())) {
            while (rs.next()) {
                marks.put(rs.getString(1), rs.getLong(2));
            }
        }
        Map<String, LeaseStatus> all = new TreeMap<>();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(leaseSql.readAll())) {
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

    /** A time column as an instant; MariaDB's zone-less UTC {@code DATETIME} read as UTC, whatever the JVM's zone. */
    private Instant instant(ResultSet rs, int column) throws SQLException {
        Timestamp timestamp = leaseSql.timesInUtc()
                ? rs.getTimestamp(column, Calendar.getInstance(TimeZone.getTimeZone("UTC")))
                : rs.getTimestamp(column);
        return timestamp == null ? null : timestamp.toInstant();
    }
}
