package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.sql.EnforceSql;
import dev.fencing.sql.ResourceName;
import dev.fencing.sql.SessionFenceSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Installs, removes and lists enforcement on PostgreSQL ({@link EnforceSql}), in the issuer's transaction, beside
 * the located epoch and lease tables.
 */
final class PostgresEnforcement implements Enforcement {
    private final Connection connection;
    private final EnforceSql sql;
    private final LeaseRows rows;

    PostgresEnforcement(LeaseRows rows) {
        this.rows = rows;
        this.connection = rows.connection();
        this.sql = new EnforceSql(rows.epochTable(), rows.leaseTable());
    }

    @Override
    public List<String> enforce(List<String> tables, String resource) throws SQLException {
        ResourceName.require(resource);
        requireFenceObjects();
        List<String> resolved = new ArrayList<>();
        for (String name : tables) {
            for (String table : resolve(name, true)) {
                String current = resourceOf(table);
                if (current != null && !current.equals(resource)) {
                    throw new IllegalArgumentException("table " + table + " is enforced for resource '" + current
                            + "': run fencing enforce --off " + table + " first");
                }
                resolved.add(table);
            }
        }
        try (Statement s = connection.createStatement()) {
            for (String create : sql.createFunction()) {
                s.execute(create);
            }
            for (String table : resolved) {
                s.execute(sql.install(table, resource));
            }
        }
        return resolved;
    }

    @Override
    public List<String> remove(List<String> tables) throws SQLException {
        List<String> removed = new ArrayList<>();
        try (Statement s = connection.createStatement()) {
            for (String name : tables) {
                for (String table : resolve(name, false)) {
                    s.execute(sql.remove(table));
                    removed.add(table);
                }
            }
        }
        return removed;
    }

    @Override
    public List<EnforcedTable> list() throws SQLException {
        List<EnforcedTable> all = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(EnforceSql.listEnforced())) {
            ps.setString(1, sql.body());
            ps.setString(2, sql.functionSignature());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    all.add(new EnforcedTable(rs.getString(1), rs.getString(2), rs.getBoolean(3), List.of()));
                }
            }
        }
        List<EnforcedTable> checked = new ArrayList<>();
        for (EnforcedTable table : all) {
            checked.add(new EnforcedTable(table.table(), table.resource(), table.inForce(), bypasses(table.table())));
        }
        return checked;
    }

    /** What lets each login role that may change {@code table} get around its enforcement, one line per role. */
    private List<String> bypasses(String table) throws SQLException {
        boolean pg15 = connection.getMetaData().getDatabaseMajorVersion() >= 15;
        List<String> lines = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(EnforceSql.bypassingRoles(pg15))) {
            ps.setString(1, sql.epochTable());
            ps.setString(2, sql.leaseTable());
            ps.setString(3, table);
            ps.setString(4, sql.functionSignature());
            ps.setString(5, sql.guardSignature());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    List<String> ways = new ArrayList<>();
                    if (rs.getBoolean(2)) {
                        ways.add("is a superuser (may set session_replication_role = replica, which skips the trigger,"
                                + " and drop it)");
                    } else {
                        if (rs.getBoolean(3)) {
                            ways.add("owns the table or is a member of its owner (may disable or drop the trigger)");
                        }
                        if (rs.getBoolean(4)) {
                            ways.add("may SET session_replication_role (replica skips the trigger)");
                        }
                        if (rs.getBoolean(5)) {
                            ways.add("owns the enforcement or guard function (may replace its body)");
                        }
                        if (rs.getBoolean(6)) {
                            ways.add("may create objects in the fence's schema");
                        }
                        if (rs.getBoolean(7)) {
                            ways.add("may write the epoch or lease table (raise a mark past the never-issued check)");
                        }
                        if (rs.getBoolean(8)) {
                            ways.add("holds TRIGGER on the table (may add triggers of its own)");
                        }
                    }
                    if (!ways.isEmpty()) {
                        lines.add("role " + rs.getString(1) + ": " + String.join("; ", ways));
                    }
                }
            }
        }
        return lines;
    }

    /** The epoch table's guard function and the session table must exist: the trigger function calls and reads them. */
    private void requireFenceObjects() throws SQLException {
        String session = new SessionFenceSql(rows.epochTable()).table();
        try (PreparedStatement ps = connection.prepareStatement("SELECT pg_catalog.to_regprocedure(?) IS NOT NULL,"
                + " pg_catalog.to_regclass(?) IS NOT NULL, pg_catalog.to_regclass(?) IS NOT NULL")) {
            ps.setString(1, sql.guardSignature());
            ps.setString(2, session);
            ps.setString(3, sql.leaseTable());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1) || !rs.getBoolean(2) || !rs.getBoolean(3)) {
                    throw new SQLException("fencing: the fence's guard function, session table or lease table is"
                            + " missing beside " + sql.epochTable() + ": run 'fencing init' with the same --url (and"
                            + " --epoch-table/--lease-table) first", FencingSqlState.CONFIGURATION);
                }
            }
        }
    }

    /**
     * The tables {@code name} denotes (the session's search_path resolves it): the table, and for a partitioned
     * table each of its partitions too (a statement on a partition fires only the partition's triggers).
     */
    private List<String> resolve(String name, boolean forEnforce) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(EnforceSql.resolveTable())) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalArgumentException("no table " + name);
                }
                String kind = rs.getString(3);
                String table = rs.getString(2);
                if (!kind.equals("r") && !kind.equals("p")) {
                    throw new IllegalArgumentException(name + " is not a table (enforcement is for tables)");
                }
                if (forEnforce && isFenceTable(rs.getLong(1))) {
                    throw new IllegalArgumentException(table + " is one of the fence's own tables, which protect"
                            + " themselves");
                }
                tables.add(table);
                if (kind.equals("p")) {
                    tables.addAll(partitions(rs.getLong(1)));
                }
            }
        }
        return tables;
    }

    private List<String> partitions(long oid) throws SQLException {
        List<String> parts = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT CAST(t.relid AS text) FROM"
                + " pg_catalog.pg_partition_tree(CAST(? AS pg_catalog.oid)) t JOIN pg_catalog.pg_class c ON c.oid = t.relid"
                + " WHERE t.level > 0 AND c.relkind IN ('r', 'p') ORDER BY t.level, 1")) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    parts.add(rs.getString(1));
                }
            }
        }
        return parts;
    }

    private boolean isFenceTable(long oid) throws SQLException {
        String session = new SessionFenceSql(rows.epochTable()).table();
        try (PreparedStatement ps = connection.prepareStatement("SELECT CAST(? AS pg_catalog.oid) IN"
                + " (pg_catalog.to_regclass(?), pg_catalog.to_regclass(?), pg_catalog.to_regclass(?))")) {
            ps.setLong(1, oid);
            ps.setString(2, sql.epochTable());
            ps.setString(3, sql.leaseTable());
            ps.setString(4, session);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** The resource {@code table} (qualified) is enforced for, or {@code null}. */
    private String resourceOf(String table) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(EnforceSql.resolveTable())) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(4) : null;
            }
        }
    }
}
