package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.sql.Analysis;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.Names;
import dev.fencing.sql.ResourceTableSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which resources own which tables, as the resource table beside the epoch table says (SPEC C11), for one connection:
 * read when the connection opens, so a change to the map applies to connections opened after it. It answers two
 * questions: for which resources a mutation needs a current token ({@link #resourcesOf}), and whether a resource
 * name is known at all before its first mark is made ({@link #requireKnown}). Not thread-safe on its own: it is
 * asked only through its connection's {@link Catalog}, under the catalog's lock.
 */
public final class ResourceMap {
    /** How many warnings the JVM remembers having logged; when full it logs no more. */
    private static final int MAX_REMEMBERED = 4096;

    private final Connection raw;
    private final ResourceTableSql sql;
    private final CatalogTables catalog;
    /** Tables mapped to resources, as the catalog stores their schema and name. */
    private final Map<CatalogTables.Table, Set<String>> mapped;
    /** Every mapped resource: what a text whose written tables cannot be named needs. */
    private final Set<String> allMapped;
    /** Own names of mapped tables, lower-cased: the free test before any catalog question. */
    private final Set<String> mappedNames;
    /**
     * Mapped tables the database no longer has under their mapped names (renamed or dropped since {@code fencing map}):
     * while there are any, the map cannot say which table is whose, so every data change needs every mapped resource.
     */
    private final Set<CatalogTables.Table> missing;

    /** What a written name means for the map: a table mapped to resources, a plain unmapped table, or unknown. */
    private record Meaning(Set<String> resources, boolean plainTable) {
    }

    private ResourceMap(Connection raw, ResourceTableSql sql, CatalogTables catalog,
                        Map<CatalogTables.Table, Set<String>> mapped, Set<CatalogTables.Table> missing) {
        this.raw = raw;
        this.missing = missing;
        this.sql = sql;
        this.catalog = catalog;
        this.mapped = mapped;
        Set<String> all = new TreeSet<>();
        Set<String> names = new HashSet<>();
        for (Map.Entry<CatalogTables.Table, Set<String>> e : mapped.entrySet()) {
            all.addAll(e.getValue());
            names.add(Names.fold(e.getKey().name()));
        }
        this.allMapped = Collections.unmodifiableSet(all);
        this.mappedNames = names;
    }

    /** A connection without a resource table: nothing mapped, and only marks and leases make a resource known. */
    public static ResourceMap none(Connection raw, Dialect dialect) {
        return new ResourceMap(raw, null, new CatalogTables(raw, dialect), Map.of(), Set.of());
    }

    /** Reads the map from the resource table beside {@code epochTable} (resolved) at connect. */
    public static ResourceMap read(Connection raw, Dialect dialect, EpochTable epochTable) throws SQLException {
        ResourceTableSql sql = new ResourceTableSql(dialect, epochTable);
        Map<CatalogTables.Table, Set<String>> mapped = new HashMap<>();
        Set<CatalogTables.Table> missing = new TreeSet<>(java.util.Comparator.comparing(CatalogTables.Table::schema)
                .thenComparing(CatalogTables.Table::name));
        try (Statement s = raw.createStatement(); ResultSet rs = s.executeQuery(sql.selectMap())) {
            while (rs.next()) {
                CatalogTables.Table table = new CatalogTables.Table(rs.getString(1), rs.getString(2));
                mapped.computeIfAbsent(table, t -> new TreeSet<>()).add(resourceText(rs, 3));
                if (!rs.getBoolean(4)) {
                    missing.add(table);
                }
            }
        }
        warnWhenWritable(raw, sql);
        if (!missing.isEmpty() && MISSING_WARNED.size() < MAX_REMEMBERED
                && MISSING_WARNED.add(sql.table() + " " + missing)) {
            dev.fencing.jdbc.audit.FenceMetrics.mappedTablesMissing(sql.table(), missing.toString());
        }
        return new ResourceMap(raw, sql, new CatalogTables(raw, dialect, epochTable), mapped, missing);
    }

    /** Resource tables and their missing mapped tables already warned about in this JVM: one line each. */
    private static final Set<String> MISSING_WARNED = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /**
     * Resource tables and users whose write privilege was already checked in this JVM (warned or not): one catalog
     * query per table and user, not one per connection.
     */
    private static final Set<String> WRITABLE_CHECKED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Logs a warning, once per JVM, table and role, when the connection's role may change the resource table: the
     * driver refuses writes to it ({@code ZF005}), but other clients of that role could remove a mapping.
     */
    private static void warnWhenWritable(Connection raw, ResourceTableSql sql) throws SQLException {
        String query = sql.writable();
        if (query == null || WRITABLE_CHECKED.size() >= MAX_REMEMBERED
                || !WRITABLE_CHECKED.add(sql.table() + " " + raw.getMetaData().getUserName())) {
            return;
        }
        try (Statement s = raw.createStatement(); ResultSet rs = s.executeQuery(query)) {
            if (rs.next() && rs.getBoolean(2)) {
                dev.fencing.jdbc.audit.FenceMetrics.resourceTableWritable(sql.table(), rs.getString(1));
            }
        }
    }

    /** A resource column as text: MariaDB keeps it as bytes ({@code VARBINARY}), written as UTF-8 by the driver. */
    static String resourceText(ResultSet rs, int column) throws SQLException {
        Object value = rs.getObject(column);
        return value instanceof byte[] bytes ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8)
                : rs.getString(column);
    }

    /** Whether no table is mapped: every mutation is fenced for the connection's resource, as without a map. */
    public boolean isEmpty() {
        return mapped.isEmpty();
    }

    /**
     * The resources a mutation needs a current token for, {@code primary} (the connection's or scope's resource)
     * standing for every table that is not mapped. A statement that only changes rows of tables it names gets
     * the resources of those tables as the database resolves the names now; anything else (DDL, calls, blocks,
     * several statements, texts the parser cannot read, row changes of a result set, a write through a view or into
     * a table with children) may reach any table, so it needs every mapped resource and {@code primary}.
     *
     * @param analysis {@code null} when the statement is not known (a result set's row change)
     */
    public Set<String> resourcesOf(Analysis analysis, String primary) throws SQLException {
        if (mapped.isEmpty()) {
            return Set.of(primary);
        }
        if (analysis == null || !analysis.changesDataOnly() || analysis.targetReferences().isEmpty()
                || !missing.isEmpty()) {
            return everything(primary);
        }
        Set<String> needed = new TreeSet<>();
        for (List<String> reference : analysis.targetReferences()) {
            Meaning meaning = meaning(reference);
            if (meaning.resources() != null) {
                needed.addAll(meaning.resources());
            } else if (meaning.plainTable()) {
                needed.add(primary);
            } else {
                return everything(primary);
            }
        }
        return needed;
    }

    private Set<String> everything(String primary) {
        Set<String> all = new TreeSet<>(allMapped);
        all.add(primary);
        return all;
    }

    /**
     * What a written name means now, asked of the database for every statement: a name's table, the search path
     * (PostgreSQL, H2) or current database (MariaDB) it is resolved through, and whether writing it runs code can all
     * change through other sessions' DDL or SQL the driver does not see ({@code set_config('search_path', ...)} in a
     * function), so nothing is remembered (a trigger added after a connection opened was missed while qualified
     * names were: found by review).
     */
    private Meaning meaning(List<String> reference) throws SQLException {
        CatalogTables.Resolved resolved = catalog.lookUp(reference);
        Meaning meaning;
        if (resolved == null) {
            // not a table the database knows: the statement fails, unless the name means something only the parser
            // of the server sees (a CTE's name is never a target); treat it like a table of the primary resource only
            // when its own name is not one of a mapped table, so no spelling of a mapped table escapes its resources
            String own = Names.fold(reference.get(reference.size() - 1));
            meaning = new Meaning(null, !mappedNames.contains(own));
        } else if (resolved.runsCode()) {
            // a trigger, a cascade, a default calling a function: the write may reach tables it does not name (found
            // by the bypass suite run with a map), so it needs every mapped resource
            meaning = new Meaning(null, false);
        } else {
            Set<String> resources = mapped.get(resolved.table());
            meaning = new Meaning(resources, resources != null || resolved.kind().equals("table"));
        }
        return meaning;
    }

    /**
     * Refuses ({@code ZF001}) a resource that is not known: neither declared nor mapped in the resource table, nor
     * with a mark in the epoch table, nor ({@code leased}) with a lease. Asked before the first mark of a resource
     * would be made, in the transaction that makes it.
     */
    void requireKnown(String resource, boolean leased) throws SQLException {
        if (leased) {
            return;
        }
        if (sql == null) {
            throw Refusals.undeclaredResource(resource, List.of(), "there is no resource table");
        }
        try (PreparedStatement known = raw.prepareStatement(sql.known())) {
            known.setString(1, resource);
            known.setString(2, resource);
            try (ResultSet rs = known.executeQuery()) {
                if (rs.next()) {
                    return;
                }
            }
        }
        throw Refusals.undeclaredResource(resource, nearest(resource), null);
    }

    /** Up to three known names nearest to {@code resource}: the same but for case first, then by edit distance. */
    private List<String> nearest(String resource) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Statement s = raw.createStatement(); ResultSet rs = s.executeQuery(sql.knownNames())) {
            while (rs.next()) {
                names.add(resourceText(rs, 1));
            }
        }
        String folded = resource.toLowerCase(Locale.ROOT);
        names.sort((a, b) -> Integer.compare(distance(folded, a.toLowerCase(Locale.ROOT)) * 2 + (a.equals(resource) ? 0 : 1),
                distance(folded, b.toLowerCase(Locale.ROOT)) * 2 + (b.equals(resource) ? 0 : 1)));
        List<String> near = new ArrayList<>();
        for (String name : names) {
            if (near.size() == 3 || distance(folded, name.toLowerCase(Locale.ROOT)) > Math.max(3, resource.length() / 2)) {
                break;
            }
            near.add(name);
        }
        return near;
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
