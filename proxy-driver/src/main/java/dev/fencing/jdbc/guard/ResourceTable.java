package dev.fencing.jdbc.guard;

import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.ResourceName;
import dev.fencing.sql.ResourceTableSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The operator's side of the resource table (SPEC C11), used by {@code fencing declare}, {@code fencing map} and
 * {@code fencing unmap}: declares resources and maps tables to them, on a connection outside the fence (the fence
 * refuses every write to the table) and in the caller's transaction. Tables are named as the database's search path
 * finds them now and stored as its catalog stores them.
 */
public final class ResourceTable {
    /** One row: a resource, and the table it owns ({@code null} for a declaration without a table). */
    public record Entry(String resource, String table) {
    }

    private final Connection raw;
    private final ResourceTableSql sql;
    private final CatalogTables catalog;
    private final Dialect dialect;

    /** The resource table beside {@code epochTable} (resolved) on {@code raw}. */
    public ResourceTable(Connection raw, Dialect dialect, EpochTable epochTable) {
        this.raw = raw;
        this.dialect = dialect;
        this.sql = new ResourceTableSql(dialect, epochTable);
        this.catalog = new CatalogTables(raw, dialect);
    }

    /** Declares each resource (a name already declared stays as it is). */
    public void declare(List<String> resources) throws SQLException {
        for (String resource : resources) {
            ResourceName.require(resource);
        }
        for (String resource : resources) {
            EpochSchema.declare(raw, sql, resource);
        }
    }

    /**
     * Maps each table to {@code resource} (replacing what it was mapped to), and the partitions or inheritance
     * children it has now; returns the tables mapped, qualified.
     *
     * @throws IllegalArgumentException for a name the database does not find, or a view (map the tables it writes)
     */
    public List<String> map(List<String> tables, String resource) throws SQLException {
        ResourceName.require(resource);
        List<CatalogTables.Table> found = resolveAll(tables, true);
        List<String> done = new ArrayList<>();
        for (CatalogTables.Table table : found) {
            unmap(table);
            try (PreparedStatement insert = raw.prepareStatement(sql.map())) {
                insert.setString(1, resource);
                insert.setString(2, table.schema());
                insert.setString(3, table.name());
                insert.executeUpdate();
            }
            done.add(table.schema() + "." + table.name());
        }
        return done;
    }

    /** Removes the mappings of each table (and of its partitions); returns the tables, qualified. */
    public List<String> unmap(List<String> tables) throws SQLException {
        List<String> done = new ArrayList<>();
        for (CatalogTables.Table table : resolveAll(tables, false)) {
            unmap(table);
            done.add(table.schema() + "." + table.name());
        }
        return done;
    }

    /** Every declaration and mapping, by resource. */
    public List<Entry> list() throws SQLException {
        List<Entry> entries = new ArrayList<>();
        try (Statement s = raw.createStatement(); ResultSet rs = s.executeQuery(sql.selectAll())) {
            while (rs.next()) {
                String name = rs.getString(3);
                entries.add(new Entry(ResourceMap.resourceText(rs, 1), name.isEmpty() ? null : rs.getString(2) + "." + name));
            }
        }
        return entries;
    }

    private void unmap(CatalogTables.Table table) throws SQLException {
        try (PreparedStatement delete = raw.prepareStatement(sql.unmap())) {
            delete.setString(1, table.schema());
            delete.setString(2, table.name());
            delete.executeUpdate();
        }
    }

    private List<CatalogTables.Table> resolveAll(List<String> names, boolean withChildren) throws SQLException {
        List<CatalogTables.Table> found = new ArrayList<>();
        for (String name : names) {
            CatalogTables.Resolved resolved = catalog.lookUp(Arrays.asList(name.split("\\.", -1)));
            if (resolved == null) {
                throw new IllegalArgumentException("table '" + name + "' not found (name it as the database's search path"
                        + " finds it: table or schema.table)");
            }
            if (resolved.kind().contains("view")) {
                throw new IllegalArgumentException("'" + name + "' is a " + resolved.kind() + ": map the tables it"
                        + " writes; a write through a view is fenced for every mapped resource");
            }
            found.add(resolved.table());
            if (withChildren) {
                found.addAll(children(resolved.table()));
            }
        }
        return found;
    }

    /** PostgreSQL: every partition or inheritance child, at any depth; none elsewhere. */
    private List<CatalogTables.Table> children(CatalogTables.Table parent) throws SQLException {
        List<CatalogTables.Table> children = new ArrayList<>();
        if (dialect != Dialect.POSTGRESQL) {
            return children;
        }
        try (PreparedStatement find = raw.prepareStatement("SELECT n.nspname, c.relname FROM"
                + " pg_catalog.pg_partition_tree(pg_catalog.to_regclass(?)) t JOIN pg_catalog.pg_class c ON c.oid ="
                + " t.relid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE t.level > 0"
                + " UNION SELECT n.nspname, c.relname FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON"
                + " c.oid = i.inhrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE i.inhparent ="
                + " pg_catalog.to_regclass(?)")) {
            String qualified = dialect.quoteExact(parent.schema()) + "." + dialect.quoteExact(parent.name());
            find.setString(1, qualified);
            find.setString(2, qualified);
            try (ResultSet rs = find.executeQuery()) {
                while (rs.next()) {
                    CatalogTables.Table child = new CatalogTables.Table(rs.getString(1), rs.getString(2));
                    if (!children.contains(child)) {
                        children.add(child);
                    }
                }
            }
        }
        return children;
    }
}
