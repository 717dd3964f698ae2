package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The fencing contract on the real PostgreSQL server, plus PostgreSQL's RETURNING. */
@RequiresPostgres
class PostgresFencingContractTest extends FencingContractTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Test
    void returningRowsEqualTheRawDriver_C8() throws Exception {
        String rawRows;
        try (Connection c = DriverManager.getConnection(raw)) {
            rawRows = returning(c, 7);
        }
        TestDatabase.exec(raw, "DELETE FROM " + table + " WHERE id >= 7");
        try (Connection c = fenced()) {
            token(c, 1);
            assertEquals(rawRows, returning(c, 7));
            token(c, 2);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE " + table + " SET balance = 0 WHERE id = 1");
            }
            token(c, 1);
            refused(FencingSqlState.STALE_TOKEN, () -> returning(c, 9));
        }
        assertEquals(-1, balance(9));
    }

    private String returning(Connection c, int id) throws Exception {
        StringBuilder out = new StringBuilder();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("INSERT INTO " + table + " VALUES (" + id + ", 70), (" + (id + 1)
                     + ", 80) RETURNING id, balance * 2 AS doubled")) {
            while (rs.next()) {
                out.append(rs.getInt(1)).append(':').append(rs.getInt("doubled")).append(' ');
            }
        }
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("UPDATE " + table + " SET balance = balance + 1 WHERE id >= " + id
                     + " RETURNING id, balance")) {
            while (rs.next()) {
                out.append(rs.getInt(1)).append('=').append(rs.getInt(2)).append(' ');
            }
        }
        return out.toString();
    }
}
