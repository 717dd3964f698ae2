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
 * MariaDB twins: a database per group and side on the MariaDB server, {@code cmp_<connector>_<group>_r} (underlying
 * driver) and {@code cmp_<connector>_<group>_f} (fencing driver, whose epoch table lives there), reached through
 * MariaDB Connector/J or MySQL Connector/J, and dropped when the next run starts, so a difference can be looked at
 * afterwards. Runs that share a server at the same time need different prefixes ({@code fencing.compat.mariadb.prefix},
 * {@code cmp} by default): one run's start drops the other's databases. The observers read with short lock waits: a table another connection holds locked is reported as
 * unreadable, not waited for.
 */
final class MariaDbTwins implements Twins {
    static final String RESOURCE = "compat";
    static final long TOKEN = 1;

    private final Connection raw;
    private final Connection fenced;
    private final Connection observeRaw;
    private final Connection observeFenced;
    private final String rawDatabase;
    private final String fencedDatabase;

    private MariaDbTwins(String baseUrl, String tag, String group, String guard) throws SQLException {
        String name = group.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_");
        String prefix = System.getProperty("fencing.compat.mariadb.prefix", "cmp");
        if (!prefix.matches("[a-z][a-z0-9]{0,15}")) {
            throw new IllegalArgumentException("fencing.compat.mariadb.prefix must be a lower-case name of at most 16"
                    + " characters: " + prefix);
        }
        rawDatabase = prefix + "_" + tag + "_" + name + "_r";
        fencedDatabase = prefix + "_" + tag + "_" + name + "_f";
        fresh(baseUrl, rawDatabase);
        fresh(baseUrl, fencedDatabase);
        raw = DriverManager.getConnection(inDatabase(baseUrl, rawDatabase));
        fenced = DriverManager.getConnection(TestDatabase.fenced(inDatabase(baseUrl, fencedDatabase),
                "fencing.schema=create", "fencing.resource=" + RESOURCE, "fencing.token=" + TOKEN,
                "fencing.guard=" + guard));
        observeRaw = observer(baseUrl);
        observeFenced = observer(baseUrl);
    }

    /** Twins through MariaDB Connector/J ({@code mysqlConnector} false) or MySQL Connector/J. */
    static Twins.Factory factory(boolean mysqlConnector) {
        String url = mysqlConnector ? TestDatabase.mysqlUrl() : TestDatabase.mariadbUrl();
        return group -> new MariaDbTwins(url, mysqlConnector ? "myc" : "mdb", group, "statement");
    }

    /** Twins through MariaDB Connector/J whose fenced side runs the session fence ({@code fencing.guard=session}). */
    static Twins.Factory sessionFenceFactory() {
        return group -> new MariaDbTwins(TestDatabase.mariadbUrl(), "mds", group, "session");
    }

    /** {@code url} with its database replaced by {@code database}. */
    private static String inDatabase(String url, String database) {
        int hostStart = url.indexOf("//") + 2;
        int pathStart = url.indexOf('/', hostStart);
        int query = url.indexOf('?');
        String tail = query < 0 ? "" : url.substring(query);
        return url.substring(0, pathStart < 0 ? (query < 0 ? url.length() : query) : pathStart) + "/" + database + tail;
    }

    private static void fresh(String url, String database) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database);
            s.execute("CREATE DATABASE " + database);
        }
    }

    private static Connection observer(String url) throws SQLException {
        Connection c = DriverManager.getConnection(url);
        try (Statement s = c.createStatement()) {
            s.execute("SET SESSION lock_wait_timeout = 1");
            s.execute("SET SESSION innodb_lock_wait_timeout = 1");
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

    /**
     * The observer's reading, tried up to three times. "Error on delete of '/tmp/#sql-temptable...'" here was
     * another suite's embedded MariaDB clearing the shared /tmp at its start (TestServers now gives it its own);
     * the retries stay for any other server-side hiccup, which says nothing about the statement under test.
     */
    @Override
    public Map<String, ObjectState> snapshot(boolean fencedSide) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return read(fencedSide);
            } catch (SQLException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private Map<String, ObjectState> read(boolean fencedSide) throws SQLException {
        Connection c = fencedSide ? observeFenced : observeRaw;
        String database = fencedSide ? fencedDatabase : rawDatabase;
        // One query per information_schema table, each with the schema as a constant: correlated subqueries that
        // name the outer row's schema made the server scan every database's tables for every row (1.4 s per
        // snapshot on the shared server, against about 40 ms like this), most of the corpus tests' time.
        Map<String, String> types = new TreeMap<>();
        for (String[] row : rows(c, "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME NOT LIKE 'fencing%'", database)) {
            types.put(row[0], row[1]);
        }
        Map<String, List<String>> columns = grouped(rows(c, "SELECT TABLE_NAME, CONCAT(COLUMN_NAME, ' ', COLUMN_TYPE)"
                + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION",
                database));
        Map<String, List<String>> triggers = grouped(rows(c, "SELECT EVENT_OBJECT_TABLE, TRIGGER_NAME"
                + " FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ?"
                + " ORDER BY EVENT_OBJECT_TABLE, TRIGGER_NAME", database));
        Map<String, List<String>> indexes = grouped(rows(c, "SELECT TABLE_NAME, INDEX_NAME"
                + " FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND SEQ_IN_INDEX = 1"
                + " ORDER BY TABLE_NAME, INDEX_NAME", database));
        Map<String, ObjectState> objects = new TreeMap<>();
        for (Map.Entry<String, String> table : types.entrySet()) {
            String name = table.getKey();
            String structure = table.getValue() + "(" + joined(columns.get(name)) + ")"
                    + (triggers.containsKey(name) ? " triggers " + joined(triggers.get(name)) : "")
                    + (indexes.containsKey(name) ? " indexes " + joined(indexes.get(name)) : "");
            objects.put(name, new ObjectState(structure, -1, ""));
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT CONCAT(ROUTINE_TYPE, ' ', ROUTINE_NAME)"
                + " FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?")) {
            ps.setString(1, database);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    objects.put(rs.getString(1), new ObjectState("routine", -1, ""));
                }
            }
        }
        for (Map.Entry<String, ObjectState> entry : objects.entrySet()) {
            String kind = entry.getValue().structure();
            if (!kind.startsWith("BASE TABLE(") && !kind.startsWith("SEQUENCE(")) {
                continue;
            }
            String table = "`" + database + "`.`" + entry.getKey().replace("`", "``") + "`";
            try (Statement s = c.createStatement();
                 ResultSet count = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
                count.next();
                long rows = count.getLong(1);
                try (ResultSet sum = s.executeQuery("CHECKSUM TABLE " + table)) {
                    sum.next();
                    entry.setValue(new ObjectState(kind, rows, String.valueOf(sum.getString(2))));
                }
            } catch (SQLException e) {
                entry.setValue(new ObjectState(kind, -2, "unreadable " + e.getErrorCode()));
            }
        }
        return objects;
    }

    /** Every row of {@code sql} run with {@code database} as its one parameter, as two strings. */
    private static List<String[]> rows(Connection c, String sql, String database) throws SQLException {
        List<String[]> rows = new java.util.ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, database);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new String[] {rs.getString(1), rs.getString(2)});
                }
            }
        }
        return rows;
    }

    /** The second column of {@code rows} by the first, in their order. */
    private static Map<String, List<String>> grouped(List<String[]> rows) {
        Map<String, List<String>> grouped = new TreeMap<>();
        for (String[] row : rows) {
            grouped.computeIfAbsent(row[0], k -> new java.util.ArrayList<>()).add(row[1]);
        }
        return grouped;
    }

    private static String joined(List<String> values) {
        return values == null ? "null" : String.join(",", values);
    }

    @Override
    public void close() throws SQLException {
        for (Connection c : List.of(raw, fenced, observeRaw, observeFenced)) {
            c.close();
        }
    }
}
