package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.FencingSqlState;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Makes an H2 file database keep what it acknowledged. H2 writes commits to its file only every
 * {@code WRITE_DELAY} ms (500 by default), so a process killed in that window loses commits it already
 * acknowledged: a raised mark or an issued token with them, and the same token is then handed out twice. With
 * {@code WRITE_DELAY} 0 every commit is written to the file (not synced to the disk: it survives the process, not
 * the machine). H2 2.5.252 keeps the setting in the database and reports it, but applies it only when it is set,
 * never when the database is opened again, so it is set at every connect; that needs admin rights, and a
 * connection whose user may not set it is refused (ZF006).
 */
public final class H2Durability {
    private H2Durability() {
    }

    /** Runs {@code SET WRITE_DELAY 0} on a persistent H2 database; ZF006 when the user may not. */
    public static void require(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            String path;
            try (ResultSet rs = s.executeQuery("SELECT DATABASE_PATH()")) {
                path = rs.next() ? rs.getString(1) : null;
            }
            if (path == null) {
                return;   // in memory: nothing survives the process anyway
            }
            try {
                s.execute("SET WRITE_DELAY 0");
            } catch (SQLException notAdmin) {
                SQLException refused = new SQLException("fencing: the H2 database " + path + " must run with"
                        + " WRITE_DELAY=0, or commits acknowledged in the last WRITE_DELAY ms (500 by default) are"
                        + " lost when the process dies, fencing marks and issued tokens with them; H2 applies the"
                        + " setting only when it is set, so the driver sets it at every connect, which this user may"
                        + " not do: connect as an H2 admin user, or have an admin connect first in the process that"
                        + " opens the database with ;WRITE_DELAY=0 in its URL", FencingSqlState.CONFIGURATION);
                refused.addSuppressed(notAdmin);
                throw refused;
            }
        }
    }
}
