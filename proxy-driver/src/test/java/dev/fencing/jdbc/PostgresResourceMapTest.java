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
import static org.junit.jupiter.api.Assertions.assertThrows;
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

    @Test
    void writesToTablesWhoseWritesRunCodeNeedEveryMappedResourceEvenWhenTheCodeCameLater_C11() throws SQLException {
        String writer = name + "_wf";
        TestDatabase.exec(raw, "CREATE FUNCTION " + writer + "(n int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN"
                        + " UPDATE " + billing + " SET v = v + 1000; RETURN n; END $$",
                "CREATE FUNCTION " + writer + "_imm(n int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN"
                        + " RETURN " + writer + "(n); END $$",
                "CREATE FUNCTION " + writer + "_trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM "
                        + writer + "(1); RETURN NEW; END $$",
                "CREATE TABLE " + name + "_pk (id int, v int) PARTITION BY RANGE (" + writer + "_imm(id))",
                "CREATE TABLE " + name + "_pk1 PARTITION OF " + name + "_pk FOR VALUES FROM (0) TO (100)",
                "INSERT INTO " + billing + " VALUES (1, 0)");
        try (Connection c = fenced("jobs"); Fencing.Scope ignored = Fencing.scope("jobs", 1)) {
            write(c, "UPDATE public." + unmapped + " SET v = v + 1"); // nothing runs code yet
            TestDatabase.exec(raw, "CREATE TRIGGER " + name + "_t BEFORE UPDATE ON " + unmapped + " FOR EACH ROW"
                    + " EXECUTE FUNCTION " + writer + "_trg()");
            for (String sql : List.of("UPDATE public." + unmapped + " SET v = v + 1",
                    "INSERT INTO public." + name + "_pk1 VALUES (1, 0)")) {
                SQLException refused = assertThrows(SQLException.class, () -> write(c, sql), sql);
                assertEquals(FencingSqlState.INVALID_TOKEN, refused.getSQLState(), sql + ": " + refused.getMessage());
            }
        }
        assertEquals(0, rows(billing + " WHERE v <> 0"), "a hidden writer reached billing's table");
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
