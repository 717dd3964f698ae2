package dev.fencing.torture;

import org.h2.api.Trigger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * H2's versions of the torture schema's triggers (see {@link Schema}): commit positions from the counter row, the
 * log of high-water mark changes, and the log row of a slot update. Each finds its tables from the trigger's name,
 * which is the run's prefix plus a suffix.
 */
public final class H2Triggers {
    private H2Triggers() {
    }

    /** Base: remembers the run's table prefix. */
    private abstract static class Base implements Trigger {
        String prefix;

        @Override
        public void init(Connection conn, String schemaName, String triggerName, String tableName, boolean before,
                         int type) {
            prefix = triggerName.substring(0, triggerName.lastIndexOf('_'));
        }

        long next(Connection c) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE " + prefix + "_clock SET n = n + 1 WHERE id = 1");
                try (ResultSet rs = s.executeQuery("SELECT n FROM " + prefix + "_clock WHERE id = 1")) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }
    }

    /** Before a log row is inserted: its commit position. */
    public static final class Position extends Base {
        @Override
        public void fire(Connection c, Object[] oldRow, Object[] newRow) throws SQLException {
            newRow[1] = next(c);
        }
    }

    /** After the epoch row is inserted or changed: a row in the mark log. */
    public static final class Mark extends Base {
        @Override
        public void fire(Connection c, Object[] oldRow, Object[] newRow) throws SQLException {
            long old = oldRow == null ? 0 : ((Number) oldRow[1]).longValue();
            long now = ((Number) newRow[1]).longValue();
            if (oldRow != null && old == now) {
                return;
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + prefix + "_marks VALUES (?, ?, ?, ?, ?)")) {
                ps.setLong(1, next(c));
                ps.setString(2, (String) newRow[0]);
                ps.setLong(3, old);
                ps.setLong(4, now);
                ps.setLong(5, Micros.now());
                ps.executeUpdate();
            }
        }
    }

    /** After a slot row is updated: the operation's log row. */
    public static final class Slot extends Base {
        @Override
        public void fire(Connection c, Object[] oldRow, Object[] newRow) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + prefix + "_ops (op_id, token) VALUES (?, ?)")) {
                ps.setLong(1, ((Number) newRow[2]).longValue());
                ps.setLong(2, ((Number) newRow[3]).longValue());
                ps.executeUpdate();
            }
        }
    }

    /** After each UPDATE statement on the data table (statement level): one row in the statements table. */
    public static final class DataStatement extends Base {
        @Override
        public void fire(Connection c, Object[] oldRow, Object[] newRow) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO " + prefix + "_stmts VALUES (1)");
            }
        }
    }
}
