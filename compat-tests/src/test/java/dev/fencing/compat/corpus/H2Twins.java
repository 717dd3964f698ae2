package dev.fencing.compat.corpus;

import dev.fencing.jdbc.TestDatabase;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** H2 twins: two fresh in-memory databases per group; the fencing side keeps its epoch table in schema {@code FENCING}. */
final class H2Twins implements Twins {
    private final Connection raw;
    private final Connection fenced;
    private final Connection observeRaw;
    private final Connection observeFenced;

    private H2Twins() throws SQLException {
        String urlA = TestDatabase.H2.rawUrl();
        String urlB = TestDatabase.H2.rawUrl();
        observeRaw = observer(urlA);
        observeFenced = observer(urlB);
        raw = DriverManager.getConnection(urlA);
        try (Statement s = observeFenced.createStatement()) {
            // The epoch table in a schema of its own, as the deployment guide advises, so PUBLIC holds the same on both.
            s.execute("CREATE SCHEMA FENCING");
        }
        fenced = DriverManager.getConnection(TestDatabase.fenced(urlB, "fencing.schema=create",
                "fencing.table=FENCING.fencing_epoch",
                "fencing.resource=" + PostgresTwins.RESOURCE, "fencing.token=" + PostgresTwins.TOKEN));
    }

    static Twins.Factory factory() {
        return group -> new H2Twins();
    }

    private static Connection observer(String url) throws SQLException {
        Connection c = DriverManager.getConnection(url);
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCK_TIMEOUT 300");
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
        Map<String, ObjectState> objects = new TreeMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT t.TABLE_SCHEMA, t.TABLE_NAME,"
                + " t.TABLE_TYPE, (SELECT LISTAGG(COLUMN_NAME || ' ' || DATA_TYPE, ', ') WITHIN GROUP (ORDER BY"
                + " ORDINAL_POSITION) FROM INFORMATION_SCHEMA.COLUMNS k WHERE k.TABLE_SCHEMA = t.TABLE_SCHEMA AND"
                + " k.TABLE_NAME = t.TABLE_NAME), (SELECT LISTAGG(TRIGGER_NAME, ',') WITHIN GROUP (ORDER BY"
                + " TRIGGER_NAME) FROM INFORMATION_SCHEMA.TRIGGERS g WHERE g.EVENT_OBJECT_SCHEMA = t.TABLE_SCHEMA"
                + " AND g.EVENT_OBJECT_TABLE = t.TABLE_NAME) FROM INFORMATION_SCHEMA.TABLES t"
                + " WHERE t.TABLE_SCHEMA NOT IN ('INFORMATION_SCHEMA', 'FENCING')")) {
            while (rs.next()) {
                objects.put(rs.getString(1) + "." + rs.getString(2), new ObjectState(rs.getString(3) + "("
                        + rs.getString(4) + ")" + (rs.getString(5) == null ? "" : " triggers " + rs.getString(5)), -1, ""));
            }
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT ROUTINE_SCHEMA || '.' ||"
                + " ROUTINE_NAME, ROUTINE_TYPE FROM INFORMATION_SCHEMA.ROUTINES WHERE ROUTINE_SCHEMA <>"
                + " 'INFORMATION_SCHEMA' UNION ALL SELECT SEQUENCE_SCHEMA || '.' || SEQUENCE_NAME, 'SEQUENCE'"
                + " FROM INFORMATION_SCHEMA.SEQUENCES WHERE SEQUENCE_SCHEMA <> 'INFORMATION_SCHEMA'"
                + " UNION ALL SELECT SCHEMA_NAME, 'SCHEMA' FROM INFORMATION_SCHEMA.SCHEMATA")) {
            while (rs.next()) {
                objects.merge(rs.getString(1), new ObjectState(rs.getString(2), -1, ""),
                        (x, y) -> new ObjectState(x.structure() + " | " + y.structure(), -1, ""));
            }
        }
        for (Map.Entry<String, ObjectState> entry : objects.entrySet()) {
            String kind = entry.getValue().structure();
            if (!kind.startsWith("BASE TABLE(")) {
                continue;
            }
            String[] name = entry.getKey().split("\\.", 2);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM \"" + name[0]
                    + "\".\"" + name[1] + "\"")) {
                List<String> rows = new ArrayList<>();
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= columns; i++) {
                        row.append(i == 1 ? "" : "|").append(rs.getString(i));
                    }
                    rows.add(row.toString());
                }
                Collections.sort(rows);
                entry.setValue(new ObjectState(kind, rows.size(), Integer.toHexString(rows.hashCode())));
            } catch (SQLException e) {
                entry.setValue(new ObjectState(kind, -2, "unreadable " + e.getSQLState()));
            }
        }
        return objects;
    }

    @Override
    public void close() throws SQLException {
        for (Connection c : List.of(raw, fenced)) {
            c.close();
        }
        for (Connection c : List.of(observeRaw, observeFenced)) {
            try (Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            }
            c.close();
        }
    }
}
