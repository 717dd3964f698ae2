package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The fencing contract on the MariaDB server through MariaDB Connector/J, plus MariaDB's RETURNING. */
@RequiresMariaDb
class MariaDbFencingContractTest extends FencingContractTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Test
    void returningRowsComeBackAndAStaleTokenChangesNothing_C8() throws Exception {
        try (Connection c = fenced()) {
            token(c, 1);
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("INSERT INTO " + table + " VALUES (7, 70), (8, 80) RETURNING id,"
                         + " balance * 2 AS doubled")) {
                StringBuilder out = new StringBuilder();
                while (rs.next()) {
                    out.append(rs.getInt(1)).append(':').append(rs.getInt("doubled")).append(' ');
                }
                assertEquals("7:140 8:160 ", out.toString());
            }
            token(c, 2);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE " + table + " SET balance = 0 WHERE id = 1");
            }
            token(c, 1);
            refused(FencingSqlState.STALE_TOKEN, () -> c.createStatement().executeQuery("DELETE FROM " + table
                    + " WHERE id = 7 RETURNING id"));
        }
        assertEquals(70, balance(7));
    }
}
