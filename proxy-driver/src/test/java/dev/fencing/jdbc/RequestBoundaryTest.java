package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Pools that mark request boundaries (JDBC 4.3 {@code endRequest}) get a connection back without its token. */
class RequestBoundaryTest {
    @Test
    void endRequestForgetsTheConnectionsTokenAndResource_C6() throws Exception {
        String raw = TestDatabase.H2.rawUrl();
        TestDatabase.exec(raw, "CREATE TABLE boundary (n INT)", "INSERT INTO boundary VALUES (0)");
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resource=configured", "fencing.resources=any")); Statement s = c.createStatement()) {
            FencedConnection fenced = c.unwrap(FencedConnection.class);
            fenced.setFencingToken(3);
            fenced.setFencingResource("borrowed");
            assertEquals(1, s.executeUpdate("UPDATE boundary SET n = 1"));
            c.endRequest();
            assertTrue(fenced.getFencingToken().isEmpty(), "the next borrower does not inherit the token");
            assertEquals("configured", fenced.getFencingResource());
            FencingRefusedException e = assertThrows(FencingRefusedException.class,
                    () -> s.executeUpdate("UPDATE boundary SET n = 2"));
            assertEquals(FencingSqlState.INVALID_TOKEN, e.getSQLState());
        }
    }
}
