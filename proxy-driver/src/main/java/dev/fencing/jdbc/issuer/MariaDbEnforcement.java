package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.MariaDbEnforceSql;
import dev.fencing.sql.MariaDbSessionFenceSql;
import dev.fencing.sql.ResourceName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Installs, removes and lists enforcement on MariaDB ({@link MariaDbEnforceSql}): three row triggers per table calling
 * one procedure beside the epoch table. Refuses what the triggers could not enforce: a table that is not InnoDB (the
 * change and the check must be one transaction), and a table that a foreign key's {@code CASCADE}/{@code SET NULL}
 * changes from a parent not enforced for the same resource (InnoDB's cascades fire no trigger).
 */
final class MariaDbEnforcement implements Enforcement {
    private final Connection connection;
    private final MariaDbEnforceSql sql;
    private final LeaseRows rows;

    MariaDbEnforcement(LeaseRows rows) {
        this.rows = rows;
        this.connection = rows.connection();
        this.sql = new MariaDbEnforceSql(rows.epochTable(), rows.leaseTable());
    }

    /** A table as the catalog names it. */
    private record Table(String schema, String name) {
        String qualified() {
            return schema + "." + name;
        }
    }

    @Override
    public List<String> enforce(List<String> tables, String resource) throws SQLException {
        ResourceName.require(resource);
        requireLeaseTable();
        Map<Table, String> enforced = enforcedResources();
        List<Table> resolved = new ArrayList<>();
        for (String name : tables) {
            Table table = resolve(name, true);
            String current = enforced.get(table);
            if (current != null && !current.equals(resource)) {
                throw new IllegalArgumentException("table " + table.qualified() + " is enforced for resource '" + current
                        + "': run fencing enforce --off " + table.qualified() + " first");
            }
            resolved.add(table);
        }
        for (Table table : resolved) {
            for (String cascade : cascades(table)) {
                String[] parts = cascade.split("\u0000", -1);
                Table parent = new Table(parts[1], parts[2]);
                if (!resolved.contains(parent) && !resource.equals(enforced.get(parent))) {
                    throw new IllegalArgumentException("table " + table.qualified() + " is changed by foreign key "
                            + parts[0] + " (ON UPDATE " + parts[3] + ", ON DELETE " + parts[4] + ") from "
                            + parent.qualified() + ", and InnoDB runs such changes without firing triggers: enforce "
                            + parent.qualified() + " for resource '" + resource + "' too (in the same command), or"
                            + " make the foreign key RESTRICT");
                }
            }
        }
        Map<Table, String> after = new LinkedHashMap<>(enforced);
        resolved.forEach(table -> after.put(table, resource));
        for (Table table : resolved) {
            String conflict = cascadeConflict(table, resource, after);
            if (conflict != null) {
                throw new IllegalArgumentException("table " + table.qualified() + " cannot be enforced for resource '"
                        + resource + "': " + conflict + "; nothing was changed");
            }
        }
        List<String> done = new ArrayList<>();
        try (Statement s = connection.createStatement()) {
            // the procedure probes the session fence's registrations and changes the writer table: both first
            for (String create : sessionFence().create()) {
                s.execute(create);
            }
            for (String create : sql.createSupport()) {
                s.execute(create);
            }
            s.execute(sql.createProcedure());
            for (Table table : resolved) {
                for (String create : sql.install(table.schema(), table.name(), resource)) {
                    s.execute(create);
                }
                done.add(table.qualified());
            }
        }
        return done;
    }

    @Override
    public List<String> remove(List<String> tables) throws SQLException {
        List<String> removed = new ArrayList<>();
        try (Statement s = connection.createStatement()) {
            for (String name : tables) {
                Table table = resolve(name, false);
                for (String drop : sql.remove(table.schema(), table.name())) {
                    s.execute(drop);
                }
                removed.add(table.qualified());
            }
        }
        return removed;
    }

    @Override
    public List<EnforcedTable> list() throws SQLException {
        Map<Table, String> resources = new LinkedHashMap<>();
        Map<Table, Set<String>> correct = new LinkedHashMap<>();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(MariaDbEnforceSql.listTriggers())) {
            while (rs.next()) {
                Table table = new Table(rs.getString(1), rs.getString(2));
                String resource = sql.resourceOf(rs.getString(7));
                if (resource == null) {
                    continue; // another epoch table's enforcement, or not enforcement's
                }
                resources.putIfAbsent(table, resource);
                String event = rs.getString(4);
                boolean right = resource.equals(resources.get(table))
                        && rs.getString(3).equals(MariaDbEnforceSql.triggerName(event, table.name()))
                        && "BEFORE".equals(rs.getString(5)) && "ROW".equals(rs.getString(6))
                        && rs.getString(7).equals(sql.triggerStatement(table.schema(), table.name(), resource));
                if (right) {
                    correct.computeIfAbsent(table, t -> new LinkedHashSet<>()).add(event);
                }
            }
        }
        boolean procedureIntact = procedureIntact();
        List<EnforcedTable> all = new ArrayList<>();
        for (Map.Entry<Table, String> entry : resources.entrySet()) {
            Table table = entry.getKey();
            boolean inForce = procedureIntact && isInnoDb(table)
                    && correct.getOrDefault(table, Set.of()).containsAll(MariaDbEnforceSql.EVENTS);
            List<String> warnings = new ArrayList<>();
            for (String cascade : cascades(table)) {
                String[] parts = cascade.split("\u0000", -1);
                Table parent = new Table(parts[1], parts[2]);
                if (!entry.getValue().equals(resources.get(parent))) {
                    inForce = false;
                    warnings.add("foreign key " + parts[0] + " from " + parent.qualified() + " changes this table"
                            + " without firing its triggers (ON UPDATE " + parts[3] + ", ON DELETE " + parts[4]
                            + "): enforce " + parent.qualified() + " for the same resource");
                }
            }
            if (!procedureIntact) {
                warnings.add("the procedure, the writer or session table or the epoch table's triggers are not as"
                        + " fencing enforce makes them (a trigger of someone else's on the writer or session table"
                        + " counts): drop what was added, then run fencing enforce again");
            }
            String conflict = cascadeConflict(table, entry.getValue(), resources);
            if (conflict != null) {
                inForce = false;
                warnings.add(conflict);
            }
            warnings.addAll(bypasses(table));
            all.add(new EnforcedTable(table.qualified(), entry.getValue(), inForce, warnings));
        }
        return all;
    }

    /** What lets each account or role get around the enforcement of {@code table}, one line per grantee. */
    private List<String> bypasses(Table table) throws SQLException {
        String fenceSchema = sql.procedureSchema();
        Map<String, Set<String>> ways = new LinkedHashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(MariaDbEnforceSql.bypassingGrantees())) {
            ps.setString(1, table.schema());
            ps.setString(2, fenceSchema);
            ps.setString(3, table.schema());
            ps.setString(4, table.name());
            List<String> fenceTables = List.of(sql.epochTable(), sql.leaseTable(),
                    sql.sessionTable().render(Dialect.MARIADB), sql.writerTable());
            for (int i = 0; i < 8; i++) {
                ps.setString(5 + i, fenceTables.get(i % 4));
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String privilege = rs.getString(2);
                    String level = rs.getString(3);
                    boolean global = level.equals("global");
                    boolean onTable = global || level.equals(table.schema()) || level.equals(table.qualified());
                    boolean onFence = global || level.equals(fenceSchema) || !onTable;
                    Set<String> its = ways.computeIfAbsent(rs.getString(1), g -> new LinkedHashSet<>());
                    switch (privilege) {
                        case "SUPER" -> its.add("holds SUPER (may create triggers and routines for any definer, and"
                                + " change global settings)");
                        case "BINLOG REPLAY" -> its.add("holds BINLOG REPLAY (a BINLOG statement applies row events"
                                + " without firing triggers)");
                        case "ALTER ROUTINE", "CREATE ROUTINE" -> its.add("may replace the enforcement procedure ("
                                + privilege + " on the fence's schema)");
                        default -> {
                            if (onTable && privilege.equals("TRIGGER")) {
                                its.add("holds TRIGGER on the table (may drop the enforcement triggers)");
                            }
                            if (onTable && privilege.equals("DROP")) {
                                its.add("holds DROP on the table (TRUNCATE fires no trigger; may drop and re-create it)");
                            }
                            if (onTable && privilege.equals("ALTER")) {
                                its.add("holds ALTER on the table (another engine, DISCARD/IMPORT TABLESPACE,"
                                        + " EXCHANGE PARTITION)");
                            }
                            if (onFence) {
                                its.add("may write or alter the fence's epoch, lease, session or writer table ("
                                        + privilege + (global || level.equals(fenceSchema) ? "" : " on " + level)
                                        + ": raise a mark past the never-issued check, forge a registration, move"
                                        + " writer rows so a raise does not wait for a prepared XA branch, or drop"
                                        + " their protection)");
                            }
                        }
                    }
                }
            }
        }
        List<String> lines = new ArrayList<>();
        ways.forEach((grantee, its) -> {
            if (!its.isEmpty()) {
                lines.add("grantee " + grantee + ": " + String.join("; ", its));
            }
        });
        return lines;
    }

    /**
     * The first table that a cascade links to {@code start}, at any depth and in either direction (what a change of
     * {@code start} cascades into, and what cascades into it), enforced for a resource other than {@code resource},
     * described; or {@code null}. InnoDB runs cascades without firing triggers, so a token for one resource would
     * change the other's rows.
     */
    private String cascadeConflict(Table start, String resource, Map<Table, String> enforced) throws SQLException {
        for (boolean down : new boolean[] {true, false}) {
            Set<Table> seen = new LinkedHashSet<>(List.of(start));
            List<Table> next = new ArrayList<>(List.of(start));
            while (!next.isEmpty()) {
                Table at = next.remove(0);
                for (String link : down ? cascadesOutOf(at) : cascades(at)) {
                    String[] parts = link.split("\u0000", -1);
                    Table other = new Table(parts[1], parts[2]);
                    String its = enforced.get(other);
                    if (its != null && !its.equals(resource)) {
                        return (down ? "a change of it cascades (foreign key " + parts[0] + " of " + other.qualified()
                                + ", through " + at.qualified() + ") into " + other.qualified()
                                : other.qualified() + " cascades (foreign key " + parts[0] + ", into " + at.qualified()
                                + ") into it, and " + other.qualified())
                                + ", which is enforced for resource '" + its + "'; InnoDB runs cascades without firing"
                                + " triggers, so a token for one resource would change the other's rows: enforce both"
                                + " for one resource, or make the foreign key RESTRICT";
                    }
                    if (seen.add(other)) {
                        next.add(other);
                    }
                }
            }
        }
        return null;
    }

    /** Each foreign key whose cascade {@code table} changes as parent: name, child schema, child table, rules. */
    private List<String> cascadesOutOf(Table table) throws SQLException {
        return links(MariaDbEnforceSql.cascadesFrom(), table);
    }

    /** Each foreign key that changes {@code table} by cascade: name, parent schema, parent table, rules, NUL-joined. */
    private List<String> cascades(Table table) throws SQLException {
        return links(MariaDbEnforceSql.cascadesInto(), table);
    }

    private List<String> links(String query, Table table) throws SQLException {
        List<String> found = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(query)) {
            ps.setString(1, table.schema());
            ps.setString(2, table.name());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.add(String.join("\u0000", rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5)));
                }
            }
        }
        return found;
    }

    private MariaDbSessionFenceSql sessionFence() {
        sql.sessionTable(); // the names enforcement needs fit, or a clear error
        return new MariaDbSessionFenceSql(rows.epochTable());
    }

    /**
     * The procedure's body and security unchanged, and what it relies on in force: the writer table with the epoch
     * table's raise trigger (XA), and the session fence's table with its protection and hand-over trigger (a live
     * registration holds the current mark).
     */
    private boolean procedureIntact() throws SQLException {
        return holds(MariaDbEnforceSql.supportCheck(), sql.supportCheckParameters())
                && holds(sessionFence().check(), sessionFence().checkParameters()) && procedureUnchanged();
    }

    private boolean holds(String check, List<String> parameters) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(check)) {
            for (int i = 0; i < parameters.size(); i++) {
                ps.setString(i + 1, parameters.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getInt(1) == 1;
            }
        }
    }

    private boolean procedureUnchanged() throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(MariaDbEnforceSql.readProcedure())) {
            ps.setString(1, sql.procedureSchema());
            ps.setString(2, sql.procedureName());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && sql.body().equals(rs.getString(1)) && "DEFINER".equals(rs.getString(2));
            }
        }
    }

    private boolean isInnoDb(Table table) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(MariaDbEnforceSql.resolveTable())) {
            ps.setString(1, table.schema());
            ps.setString(2, table.name());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && "InnoDB".equalsIgnoreCase(rs.getString(4));
            }
        }
    }

    /** The tables enforced beside this epoch table now, with their resources. */
    private Map<Table, String> enforcedResources() throws SQLException {
        Map<Table, String> enforced = new LinkedHashMap<>();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(MariaDbEnforceSql.listTriggers())) {
            while (rs.next()) {
                String resource = sql.resourceOf(rs.getString(7));
                if (resource != null) {
                    enforced.putIfAbsent(new Table(rs.getString(1), rs.getString(2)), resource);
                }
            }
        }
        return enforced;
    }

    /** The procedure reads the lease table for the never-issued check: it must exist. */
    private void requireLeaseTable() throws SQLException {
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT 1 FROM " + sql.leaseTable() + " LIMIT 0")) {
            rs.next();
        } catch (SQLException missing) {
            throw new SQLException("fencing: the fence's lease table " + sql.leaseTable() + " is missing or unreadable ("
                    + missing.getMessage() + "): run 'fencing init' with the same --url (and --epoch-table/--lease-table)"
                    + " first", FencingSqlState.CONFIGURATION, missing);
        }
    }

    /**
     * The table {@code name} denotes: {@code table} in the session's database or {@code schema.table} (either part
     * may be in backquotes), a base table; for enforcement InnoDB and none of the fence's own tables.
     */
    private Table resolve(String name, boolean forEnforce) throws SQLException {
        String[] parts = splitName(name);
        try (PreparedStatement ps = connection.prepareStatement(MariaDbEnforceSql.resolveTable())) {
            ps.setString(1, parts[0]);
            ps.setString(2, parts[1]);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalArgumentException("no table " + name);
                }
                Table table = new Table(rs.getString(1), rs.getString(2));
                if (!"BASE TABLE".equals(rs.getString(3))) {
                    throw new IllegalArgumentException(name + " is not a table (enforcement is for tables)");
                }
                if (forEnforce) {
                    if (isFenceTable(table)) {
                        throw new IllegalArgumentException(table.qualified() + " is one of the fence's own tables,"
                                + " which protect themselves");
                    }
                    if (!"InnoDB".equalsIgnoreCase(rs.getString(4))) {
                        throw new IllegalArgumentException(table.qualified() + " is " + rs.getString(4) + ", not InnoDB:"
                                + " enforcement needs the change and its check in one transaction (ALTER TABLE "
                                + table.qualified() + " ENGINE=InnoDB)");
                    }
                }
                return table;
            }
        }
    }

    private boolean isFenceTable(Table table) {
        String rendered = Dialect.MARIADB.quoteExact(table.schema()) + "." + Dialect.MARIADB.quoteExact(table.name());
        String resourceTable = rows.epochTable().storedTable(Dialect.MARIADB) + "_resource";
        return rendered.equals(sql.epochTable()) || rendered.equals(sql.leaseTable())
                || (table.schema().equals(sql.procedureSchema()) && table.name().equals(resourceTable));
    }

    private static String[] splitName(String name) {
        String trimmed = name.trim();
        int dot = trimmed.startsWith("`") ? trimmed.indexOf("`.", 1) + 1 : trimmed.indexOf('.');
        String schema = dot > 0 ? unquote(trimmed.substring(0, dot)) : null;
        String table = unquote(dot > 0 ? trimmed.substring(dot + 1) : trimmed);
        if (table.isEmpty() || (schema != null && schema.isEmpty())) {
            throw new IllegalArgumentException("'" + name + "' is not a table name (table or schema.table)");
        }
        return new String[] {schema, table};
    }

    private static String unquote(String part) {
        return part.length() >= 2 && part.startsWith("`") && part.endsWith("`")
                ? part.substring(1, part.length() - 1).replace("``", "`") : part;
    }
}
