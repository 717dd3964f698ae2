package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.sql.LeaseSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The guard's never-issued check (SPEC C7): before an advance, a token above the issued mark of a resource that
 * has a lease-table row is refused. Runs only on the advance path, in the advancing transaction, so writers of
 * the current epoch never pay for it.
 */
public final class IssuerCheck {
    private final Connection raw;
    private final LeaseSql sql;
    private boolean tablePresent;

    /** {@code sql} names the lease table qualified; {@code tablePresent} when it existed at connect. */
    public IssuerCheck(Connection raw, LeaseSql sql, boolean tablePresent) {
        this.raw = raw;
        this.sql = sql;
        this.tablePresent = tablePresent;
    }

    /**
     * Refuses {@code token} when the resource is under the issuer and the token is above its issued mark; locks
     * the lease row otherwise, so the mark cannot change before the advance commits. Returns whether the resource
     * has a lease row (the issuer manages it, so it is known: SPEC C11).
     */
    boolean verify(String resource, long token) throws SQLException {
        if (!tablePresent && !(tablePresent = probe())) {
            return false;
        }
        try (PreparedStatement read = raw.prepareStatement(sql.lockIssued())) {
            read.setString(1, resource);
            try (ResultSet rs = read.executeQuery()) {
                if (!rs.next()) {
                    return false;
                }
                if (token > rs.getLong(1)) {
                    throw Refusals.notIssued(resource, token, rs.getLong(1));
                }
                return true;
            }
        }
    }

    /**
     * Whether the lease table exists under the qualified name resolved at connect; asked again at each advance
     * until it does (the default lease table may be created after the connection opened).
     */
    private boolean probe() throws SQLException {
        try (PreparedStatement probe = raw.prepareStatement(sql.tableExists())) {
            probe.setString(1, sql.tableExistsSchema());
            probe.setString(2, sql.tableExistsName());
            try (ResultSet rs = probe.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        }
    }
}
