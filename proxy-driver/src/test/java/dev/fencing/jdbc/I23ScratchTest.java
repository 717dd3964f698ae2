package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;
import java.sql.*;

@RequiresMariaDb
class I23ScratchTest {
    static long q(Connection c, String what) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE '" + what + "'")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    @Test
    void count() throws SQLException {
        String raw = TestDatabase.MARIADB.rawUrl();
        String table = TestDatabase.unique("scr");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, v INT)", "INSERT INTO " + table + " VALUES (1,1),(2,2)");
        try (Connection f = TestDatabase.fencedAt(3, raw, "fencing.schema=create", "fencing.resource=" + TestDatabase.unique("r"))) {
            f.setAutoCommit(false);
            try (Statement s = f.createStatement()) {
                s.executeUpdate("UPDATE " + table + " SET v = v + 1");
                s.executeUpdate("UPDATE " + table + " SET v = v + 1");
                long qs = q(f, "Questions");
                s.executeUpdate("UPDATE " + table + " SET v = v + 1");
                long qs2 = q(f, "Questions");
                System.out.println("SCRATCH update questions " + (qs2 - qs - 1));
                long sel = q(f, "Com_select");
                try (ResultSet rs = s.executeQuery("SELECT ROW_COUNT()")) { rs.next(); System.out.println("SCRATCH rc " + rs.getInt(1)); }
                System.out.println("SCRATCH select rc selects " + (q(f, "Com_select") - sel));
                s.executeUpdate("UPDATE " + table + " SET v = v + 1");
                sel = q(f, "Com_select");
                try (ResultSet rs = s.executeQuery("SELECT ROW_COUNT()")) { rs.next(); System.out.println("SCRATCH rc " + rs.getInt(1)); }
                System.out.println("SCRATCH select rc selects " + (q(f, "Com_select") - sel));
            }
            f.commit();
        } finally {
            TestDatabase.exec(raw, "DROP TABLE " + table);
        }
    }
}
