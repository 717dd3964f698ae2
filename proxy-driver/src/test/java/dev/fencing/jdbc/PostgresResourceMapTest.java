package dev.fencing.jdbc;

import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.ResourceTableSql;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ResourceMapTest} on POSTGRESQL, and the warning about roles that may change the resource table. */
@RequiresPostgres
class PostgresResourceMapTest extends ResourceMapTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Test
    void aRoleThatMayChangeTheResourceTableIsWarnedAboutOncePerTable_C11() throws SQLException {
        String epochs = TestDatabase.unique("rtpriv") + "_epoch";
        String role = TestDatabase.unique("rtrole");
        String raw = database().rawUrl();
        TestDatabase.cli(0, raw, epochs, epochs + "_lease", "init");
        LogCapture capture = LogCapture.start();
        List<String> logged = capture.lines();
        String writable = new ResourceTableSql(Dialect.POSTGRESQL, EpochTable.resolved("public", epochs)).writable();
        try {
            for (int i = 0; i < 2; i++) {
                DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + epochs,
                        "fencing.lease.table=" + epochs + "_lease", "fencing.resources=any")).close();
            }
            List<String> warnings = logged.stream().filter(l -> l.contains("may change the resource table")).toList();
            assertEquals(1, warnings.size(), String.join("\n", logged));
            assertTrue(warnings.get(0).contains(epochs + "_resource"), warnings.get(0));
            // a role with SELECT only is not warned about; one that may delete is
            TestDatabase.exec(raw, "CREATE ROLE " + role + " LOGIN", "GRANT SELECT ON " + epochs + "_resource TO " + role);
            assertFalse(writableFor(raw, role, writable));
            TestDatabase.exec(raw, "GRANT DELETE ON " + epochs + "_resource TO " + role);
            assertTrue(writableFor(raw, role, writable));
        } finally {
            capture.close();
            TestDatabase.exec(raw, "DROP TABLE IF EXISTS " + epochs + "_resource", "DROP ROLE IF EXISTS " + role);
            TestDatabase.dropNamed(raw, epochs);
        }
    }

    private static boolean writableFor(String raw, String role, String writable) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw.replace("user=postgres", "user=" + role));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(writable)) {
            rs.next();
            assertEquals(role, rs.getString(1));
            return rs.getBoolean(2);
        }
    }
}
