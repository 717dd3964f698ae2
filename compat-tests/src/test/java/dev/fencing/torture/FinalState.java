package dev.fencing.torture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the database holds after a torture run: the log rows with their commit positions, the log of high-water
 * mark changes, the items per operation, and the data and slot rows.
 *
 * @param ops     log rows by operation id
 * @param marks   every change of the resource's high-water mark, in commit order
 * @param items   item rows per operation id
 * @param data    data rows by id
 * @param slots   slot rows by id
 * @param mark    the resource's high-water mark now (0 without a row)
 * @param dataStatements how many UPDATE statements on the data table committed, as their statement-level trigger
 *                       counted them
 */
record FinalState(Map<Long, LogRow> ops, List<MarkChange> marks, Map<Long, Integer> items, Map<Integer, Row> data,
                  Map<Integer, Row> slots, long mark, long dataStatements) {

    /** A committed operation's log row; {@code pos} is its commit position. */
    record LogRow(long opId, long pos, long token) {
    }

    /** One committed change of the high-water mark, logged by a trigger on the epoch table. */
    record MarkChange(long pos, long oldMark, long newMark, long atMicros) {
    }

    /** A data or slot row: its counter and the last operation that wrote it. */
    record Row(int id, long v, Long lastOp) {
    }

    static FinalState read(Connection c, Schema schema, String resource) throws SQLException {
        Map<Long, LogRow> ops = new HashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT op_id, pos, token FROM " + schema.ops())) {
            while (rs.next()) {
                ops.put(rs.getLong(1), new LogRow(rs.getLong(1), rs.getLong(2), rs.getLong(3)));
            }
        }
        List<MarkChange> marks = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT pos, old_epoch, new_epoch, at_micros FROM "
                + schema.marks() + " WHERE resource = ? ORDER BY pos")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    marks.add(new MarkChange(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
                }
            }
        }
        Map<Long, Integer> items = new HashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT op_id, count(*) FROM " + schema.items() + " GROUP BY op_id")) {
            while (rs.next()) {
                items.put(rs.getLong(1), rs.getInt(2));
            }
        }
        long mark = 0;
        try (PreparedStatement ps = c.prepareStatement("SELECT epoch FROM " + schema.epoch() + " WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    mark = rs.getLong(1);
                }
            }
        }
        long statements;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + schema.statements())) {
            rs.next();
            statements = rs.getLong(1);
        }
        return new FinalState(ops, marks, items, rows(c, "SELECT id, v, last_op FROM " + schema.data()),
                rows(c, "SELECT id, v, op_id FROM " + schema.slots()), mark, statements);
    }

    private static Map<Integer, Row> rows(Connection c, String sql) throws SQLException {
        Map<Integer, Row> rows = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                int id = rs.getInt(1);
                long v = rs.getLong(2);
                long last = rs.getLong(3);
                rows.put(id, new Row(id, v, rs.wasNull() ? null : last));
            }
        }
        return rows;
    }
}
