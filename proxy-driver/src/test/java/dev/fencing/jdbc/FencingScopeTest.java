package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Nested {@link Fencing} scopes closed in any order (SPEC C6): the innermost scope still open is in force, and a
 * closed scope never applies again, as the connection reports and as the database sees (on H2).
 */
class FencingScopeTest {
    private String raw;

    @BeforeEach
    void setUp() throws SQLException {
        raw = TestDatabase.H2.rawUrl();
        TestDatabase.exec(raw, "CREATE TABLE item (id INT PRIMARY KEY, v INT)", "INSERT INTO item VALUES (1, 0)");
    }

    @AfterEach
    void tearDown() throws SQLException {
        // a failed test must not leave its scopes open on the thread the next test classes run on
        for (Fencing.Scope open = Fencing.current(); open != null; open = Fencing.current()) {
            open.close();
        }
        TestDatabase.exec(raw, "DROP ALL OBJECTS");
    }

    /** Every order of {0, 1, 2}. */
    private static List<int[]> permutations() {
        List<int[]> all = new ArrayList<>();
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                for (int c = 0; c < 3; c++) {
                    if (a != b && b != c && a != c) {
                        all.add(new int[] {a, b, c});
                    }
                }
            }
        }
        return all;
    }

    @Test
    void everyCloseOrderOfThreeNestedScopesLeavesOnlyOpenOnesInForce_C6() throws Exception {
        List<int[]> orders = permutations();
        assertEquals(6, orders.size());
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resources=any"))) {
            FencedConnection fenced = c.unwrap(FencedConnection.class);
            for (int[] order : orders) {
                Fencing.Scope[] scopes = {Fencing.scope("scope-a", 1), Fencing.scope("scope-b", 2),
                        Fencing.scope("scope-c", 3)};
                boolean[] open = {true, true, true};
                assertSame(scopes[2], Fencing.current());
                for (int closing : order) {
                    scopes[closing].close();
                    open[closing] = false;
                    Fencing.Scope expected = null;
                    for (int i = 0; i < 3; i++) {
                        expected = open[i] ? scopes[i] : expected;
                    }
                    String step = "closed " + closing + " in order " + order[0] + order[1] + order[2];
                    assertSame(expected, Fencing.current(), step);
                    assertEquals(expected == null ? "default" : expected.resource(), fenced.getFencingResource(), step);
                    assertEquals(expected == null ? OptionalLong.empty() : OptionalLong.of(expected.token()),
                            fenced.getFencingToken(), step);
                    scopes[closing].close();
                    assertSame(expected, Fencing.current(), "closing twice changes nothing: " + step);
                }
            }
        }
    }

    @Test
    void aScopeClosedBeforeTheOneInsideItNeverAppliesAgain_C6() throws Exception {
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resources=any"));
             Statement s = c.createStatement()) {
            Fencing.Scope a = Fencing.scope("scope-a", 1);
            Fencing.Scope b = Fencing.scope("scope-b", 1);
            a.close();
            assertEquals(1, s.executeUpdate("UPDATE item SET v = v + 1"), "b is still open");
            b.close();
            SQLException e = assertThrows(SQLException.class, () -> s.executeUpdate("UPDATE item SET v = v + 100"));
            assertEquals(FencingSqlState.INVALID_TOKEN, e.getSQLState(), e.getMessage());
        }
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT v FROM item")) {
                rs.next();
                assertEquals(1, rs.getInt(1), "only the write inside b landed");
            }
            try (ResultSet rs = s.executeQuery("SELECT resource FROM fencing_epoch ORDER BY resource")) {
                rs.next();
                assertEquals("scope-b", rs.getString(1));
                assertEquals(false, rs.next(), "nothing ran as scope-a");
            }
        }
    }

    @Test
    void aScopeClosedOnAnotherThreadNoLongerApplies_C6() throws Exception {
        Fencing.Scope outer = Fencing.scope("scope-a", 1);
        Fencing.Scope inner = Fencing.scope("scope-b", 2);
        Thread other = new Thread(inner::close);
        other.start();
        other.join();
        assertSame(outer, Fencing.current());
        outer.close();
        assertNull(Fencing.current());
    }
}
