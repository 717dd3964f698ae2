package dev.fencing.jdbc.internal;

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
final class IssuerCheck {
    private final Connection raw;
    private final LeaseSql sql;
    private boolean tablePresent;

    IssuerCheck(Connection raw, LeaseSql sql) {
        this.raw = raw;
        this.sql = sql;
    }

    /**
     * Refuses {@code token} when the resource is under the issuer and the token is above its issued mark; locks
     * the lease row otherwise, so the mark cannot change before the advance commits.
     */
    void verify(String resource, long token) throws SQLException {
        if (!tablePresent && !(tablePresent = probe())) {
            return;
        }
        try (PreparedStatement read = raw.prepareStatement(sql.lockIssued())) {
            read.setString(1, resource);
            try (ResultSet rs = read.executeQuery()) {
                if (rs.next() && token > rs.getLong(1)) {
                    throw Refusals.notIssued(resource, token, rs.getLong(1));
                }
            }
        }
    }

    /** Whether the lease table exists; asked again at each advance until it does (it may be created later). */
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
