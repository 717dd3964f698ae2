package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A refusal's call site runs from the code that called JDBC, through the data-access layer, to the first caller
 * outside it: the place that should open the token's scope (issue 14 item 6).
 */
class CallSiteTest {
    private String raw;

    @BeforeEach
    void setUp() throws SQLException {
        raw = TestDatabase.H2.rawUrl();
        TestDatabase.exec(raw, "CREATE TABLE invoice (id INT PRIMARY KEY, amount INT)");
        FencingAudit.reset();
    }

    @AfterEach
    void tearDown() throws SQLException {
        FencingAudit.reset();
        TestDatabase.exec(raw, "DROP ALL OBJECTS");
    }

    /** The application's JDBC helper, which the DAOs call. */
    static final class Jdbc {
        static int update(Connection c, String sql) throws SQLException {
            try (Statement s = c.createStatement()) {
                return s.executeUpdate(sql);
            }
        }
    }

    static final class InvoiceDao {
        int insert(Connection c, int id) throws SQLException {
            return Jdbc.update(c, "INSERT INTO invoice VALUES (" + id + ", 10)");
        }
    }

    static final class BillingService {
        int bill(Connection c, int id) throws SQLException {
            return new InvoiceDao().insert(c, id);
        }
    }

    @Test
    void theCallSiteRunsFromTheJdbcCallerThroughTheDaoToItsFirstCallerOutside_C1() throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.mode=audit", "fencing.audit.file=target/fencing-audit.json", "fencing.resource=billing"))) {
            assertEquals(1, new BillingService().bill(c, 1));
        }
        List<String> sites = FencingAudit.report().findings().stream()
                .filter(f -> f.sql().startsWith("INSERT INTO invoice")).findFirst().orElseThrow().callSites();
        assertEquals(1, sites.size(), sites::toString);
        String[] chain = sites.get(0).split(" <- ");
        assertEquals(3, chain.length, sites::toString);
        assertTrue(chain[0].startsWith(Jdbc.class.getName() + ".update(CallSiteTest.java:"), chain[0]);
        assertTrue(chain[1].startsWith(InvoiceDao.class.getName() + ".insert(CallSiteTest.java:"), chain[1]);
        assertTrue(chain[2].startsWith(BillingService.class.getName() + ".bill(CallSiteTest.java:"), chain[2]);
    }

    @Test
    void aDaoCalledFromATestEndsAtTheTest_C1() throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.mode=audit", "fencing.audit.file=target/fencing-audit.json", "fencing.resource=billing"))) {
            assertEquals(1, new InvoiceDao().insert(c, 2));
        }
        String site = FencingAudit.report().findings().get(0).callSites().get(0);
        String test = getClass().getName() + ".aDaoCalledFromATestEndsAtTheTest_C1(CallSiteTest.java:";
        assertTrue(site.endsWith(" <- " + test + site.substring(site.lastIndexOf(':') + 1)), site);
        assertEquals(3, site.split(" <- ").length, site);
    }
}
