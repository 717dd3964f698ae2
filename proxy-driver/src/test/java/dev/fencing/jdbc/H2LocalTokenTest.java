package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Token settings sent as SQL on H2, where no server can say when a {@code SET LOCAL} ends: it is refused. */
class H2LocalTokenTest extends LocalTokenTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Test
    void setLocalIsRefusedAndSetsNothing_C9() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            for (String sql : new String[] {"SET LOCAL fencing.token = 5", "set local FENCING.TOKEN to '5'",
                    "SET LOCAL fencing.resource = 'orders'"}) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute(sql), sql);
                assertEquals(FencingSqlState.CONFIGURATION, e.getSQLState(), e.getMessage());
                assertTrue(e.getMessage().contains("SET fencing.") && e.getMessage().contains("Fencing.scope"),
                        e.getMessage());
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    assertEquals(FencingSqlState.CONFIGURATION, assertThrows(SQLException.class, ps::execute)
                            .getSQLState());
                }
                assertRefused(FencingSqlState.INVALID_TOKEN, s);
                c.rollback();
            }
        }
        assertEquals(0, value());
    }
}
