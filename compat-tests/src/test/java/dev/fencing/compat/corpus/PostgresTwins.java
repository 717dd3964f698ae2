package dev.fencing.compat.corpus;

import dev.fencing.jdbc.TestDatabase;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * PostgreSQL twins: a schema per group on each of two databases ({@code fencing.test.pg.url} and
 * {@code fencing.compat.pg.twin.url}, by default the same database), named {@code compat_<group>_raw} and
 * {@code compat_<group>_fenced} and dropped when the next run starts, so a difference can be looked at afterwards.
 * The fencing side keeps its epoch table in its group schema.
 */
final class PostgresTwins implements Twins {
    static final String RESOURCE = "compat";
    static final long TOKEN = 1;

    private final Connection raw;
    private final Connection fenced;
    private final Connection observeRaw;
    private final Connection observeFenced;
    private final String rawSchema;
    private final String fencedSchema;

    private PostgresTwins(String group) throws SQLException {
        String urlA = TestDatabase.pgUrl();
        String urlB = System.getProperty("fencing.compat.pg.twin.url", urlA);
        String name = group.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_");
        rawSchema = "compat_" + name + "_raw";
        fencedSchema = "compat_" + name + "_fenced";
        fresh(urlA, rawSchema);
        fresh(urlB, fencedSchema);
        raw = DriverManager.getConnection(withSchema(urlA, rawSchema));
        fenced = DriverManager.getConnection(TestDatabase.fenced(withSchema(urlB, fencedSchema),
                "fencing.schema=create", "fencing.resource=" + RESOURCE, "fencing.token=" + TOKEN));
        observeRaw = observer(urlA, rawSchema);
        observeFenced = observer(urlB, fencedSchema);
    }

    static Twins.Factory factory() {
        return PostgresTwins::new;
    }

    private static String withSchema(String url, String schema) {
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    private static void fresh(String url, String schema) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            s.execute("CREATE SCHEMA " + schema);
        }
    }

    private static Connection observer(String url, String schema) throws SQLException {
        Connection c = DriverManager.getConnection(url);
        try (Statement s = c.createStatement()) {
            // A table held by an open transaction's exclusive lock is reported as locked, not waited for.
            s.execute("SET lock_timeout = '300ms'");
            // Types of the group's schema are then written without it, the same on both sides.
            s.execute("SET search_path = " + schema + ", pg_catalog");
        }
        return c;
    }

    @Override
    public Connection raw() {
        return raw;
    }

    @Override
    public Connection fenced() {
        return fenced;
    }

    @Override
    public Map<String, ObjectState> snapshot(boolean fencedSide) throws SQLException {
        Connection c = fencedSide ? observeFenced : observeRaw;
        String schema = fencedSide ? fencedSchema : rawSchema;
        Map<String, ObjectState> objects = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT c.relname, c.relkind::text,"
                + " (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum)"
                + " FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),"
                + " (SELECT string_agg(t.tgname || CASE WHEN t.tgenabled = 'D' THEN ' disabled' ELSE '' END, ','"
                + " ORDER BY t.tgname) FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal),"
                + " (SELECT string_agg(r.rulename, ',' ORDER BY r.rulename) FROM pg_rewrite r WHERE r.ev_class = c.oid"
                + " AND r.rulename <> '_RETURN'),"
                + " (SELECT string_agg(i.inhparent::regclass::text, ',') FROM pg_inherits i WHERE i.inhrelid = c.oid)"
                + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ?"
                + " AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f', 'c', 'i') AND c.relname NOT LIKE 'fencing%'")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String structure = rs.getString(2) + "(" + rs.getString(3) + ")"
                            + (rs.getString(4) == null ? "" : " triggers " + rs.getString(4))
                            + (rs.getString(5) == null ? "" : " rules " + rs.getString(5))
                            + (rs.getString(6) == null ? "" : " inherits " + rs.getString(6));
                    objects.put(rs.getString(1), new ObjectState(structure, -1, ""));
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT p.proname || '/' || p.prokind::text,"
                + " string_agg(pg_get_function_identity_arguments(p.oid), ' | ' ORDER BY"
                + " pg_get_function_identity_arguments(p.oid)) FROM pg_proc p JOIN pg_namespace n"
                + " ON n.oid = p.pronamespace WHERE n.nspname = ? AND p.proname NOT LIKE 'fencing%' GROUP BY 1"
                + " UNION ALL SELECT 'type ' || t.typname, t.typtype::text FROM pg_type t JOIN pg_namespace n"
                + " ON n.oid = t.typnamespace WHERE n.nspname = ? AND t.typtype IN ('d', 'e', 'r')"
                + " UNION ALL SELECT 'policy ' || polname, '' FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ?")) {
            ps.setString(1, schema);
            ps.setString(2, schema);
            ps.setString(3, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    objects.merge(rs.getString(1), new ObjectState(rs.getString(2), -1, ""),
                            (x, y) -> new ObjectState(x.structure() + " | " + y.structure(), -1, ""));
                }
            }
        }
        for (Map.Entry<String, ObjectState> entry : objects.entrySet()) {
            String kind = entry.getValue().structure();
            if (!(kind.startsWith("r(") || kind.startsWith("p(") || kind.startsWith("m("))) {
                continue;
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*), md5(coalesce("
                    + "string_agg(x::text, ',' ORDER BY x::text), '')) FROM ONLY \"" + schema + "\".\""
                    + entry.getKey().replace("\"", "\"\"") + "\" x")) {
                rs.next();
                entry.setValue(new ObjectState(kind, rs.getLong(1), rs.getString(2)));
            } catch (SQLException e) {
                entry.setValue(new ObjectState(kind, -2, "unreadable " + e.getSQLState()));
            }
        }
        return objects;
    }

    @Override
    public void close() throws SQLException {
        for (Connection c : List.of(raw, fenced, observeRaw, observeFenced)) {
            c.close();
        }
    }
}
