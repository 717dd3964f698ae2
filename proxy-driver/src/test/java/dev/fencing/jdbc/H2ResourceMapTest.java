package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link ResourceMapTest} on H2, and H2's own ways for a write to run SQL the statement does not show. */
class H2ResourceMapTest extends ResourceMapTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Test
    void defaultsGeneratedColumnsAndChecksRunningSqlNeedEveryMappedResource_C11() throws SQLException {
        String delta = "(SELECT COUNT(*) FROM FINAL TABLE (UPDATE " + billing + " SET v = v + 1))";
        TestDatabase.exec(raw, "INSERT INTO " + billing + " VALUES (1, 0)",
                "CREATE TABLE " + name + "_d (id INT, x INT DEFAULT " + delta + ")",
                "CREATE TABLE " + name + "_g (id INT, x INT GENERATED ALWAYS AS " + delta + ")",
                "CREATE TABLE " + name + "_c (id INT, x INT, CHECK (x IS NULL OR x < " + delta + " + 100))");
        try (Connection c = fenced("jobs"); Fencing.Scope ignored = Fencing.scope("jobs", 1)) {
            for (String sql : List.of("INSERT INTO " + name + "_d (id) VALUES (1)",
                    "INSERT INTO " + name + "_g (id) VALUES (1)", "INSERT INTO " + name + "_c VALUES (1, 1)")) {
                SQLException refused = assertThrows(SQLException.class, () -> write(c, sql), sql);
                assertEquals(FencingSqlState.INVALID_TOKEN, refused.getSQLState(), sql + ": " + refused.getMessage());
            }
        }
        assertEquals(0, rows(billing + " WHERE v <> 0"), "a hidden writer reached billing's table");
    }
}
