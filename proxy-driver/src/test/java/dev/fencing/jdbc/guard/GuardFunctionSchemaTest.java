package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.RequiresPostgres;
import dev.fencing.jdbc.TestDatabase;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochSql;
import dev.fencing.sql.EpochTable;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PostgreSQL guard function as part of the epoch table's protection: an installation from before it (or with
 * the guard function from before the nonce) is refused by {@code validate} and upgraded by {@code create}, a replaced
 * body is found, and DDL on it through the driver is a
 * write to the fence.
 */
@RequiresPostgres
class GuardFunctionSchemaTest {
    private static final String TABLE = "guard_schema_epoch";

    private static String fencedUrl(String raw, String schemaMode) {
        return "jdbc:fencing:" + raw.substring("jdbc:".length()) + "&fencing.schema=" + schemaMode + "&fencing.table="
                + TABLE + "&fencing.issuer.check=off&fencing.token=1&fencing.resource=gs";
    }

    @Test
    void anEpochTableWithoutTheGuardFunctionIsRefusedByValidateAndUpgradedByCreate_C9() throws SQLException {
        String raw = TestDatabase.POSTGRESQL.rawUrl();
        EpochSql sql = new EpochSql(Dialect.POSTGRESQL, EpochTable.resolved("public", TABLE));
        String function = "public.fencing_guard_" + TABLE + "(text, bigint, bigint)";
        String before = "public.fencing_guard_" + TABLE + "(text, bigint)";
        try (Connection admin = DriverManager.getConnection(raw); Statement s = admin.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute("DROP FUNCTION IF EXISTS " + function);
            s.execute("DROP FUNCTION IF EXISTS " + before);
            s.execute(sql.createTable());
            for (String each : sql.protect()) {
                if (!each.contains("fencing_guard_")) {
                    s.execute(each); // the protection as installed before the guard function
                }
            }
            // The guard function of the versions before the nonce: (resource, token), whatever its body.
            s.execute("CREATE FUNCTION " + before.replace("(text, bigint)", "(resource_name text, token bigint)")
                    + " RETURNS integer LANGUAGE plpgsql SET search_path = pg_catalog AS $$BEGIN RETURN 1; END$$");
            SQLException missing = assertThrows(SQLException.class,
                    () -> DriverManager.getConnection(fencedUrl(raw, "validate")).close());
            assertEquals(FencingSqlState.CONFIGURATION, missing.getSQLState());
            assertTrue(missing.getMessage().contains("the guard function"), missing.getMessage());

            try (Connection upgraded = DriverManager.getConnection(fencedUrl(raw, "create"));
                 Statement fenced = upgraded.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS gs_shared (v int)");
                assertEquals(0, fenced.executeUpdate("UPDATE gs_shared SET v = 1"));
                try (java.sql.ResultSet rs = s.executeQuery("SELECT epoch FROM " + TABLE + " WHERE resource = 'gs'")) {
                    assertTrue(rs.next() && rs.getLong(1) == 1, "the guard function said behind, the mark advanced");
                }
                SQLException ddl = assertThrows(SQLException.class,
                        () -> fenced.execute("DROP FUNCTION " + function));
                assertEquals(FencingSqlState.PROTECTED, ddl.getSQLState(), "DDL on the guard writes the fence");
            }
            DriverManager.getConnection(fencedUrl(raw, "validate")).close();

            s.execute("CREATE OR REPLACE FUNCTION " + function.replace("(text, bigint, bigint)", "(resource_name text,"
                    + " token bigint, nonce bigint)") + " RETURNS integer LANGUAGE plpgsql SET search_path = pg_catalog AS $$BEGIN RETURN 1;"
                    + " END$$");
            SQLException replaced = assertThrows(SQLException.class,
                    () -> DriverManager.getConnection(fencedUrl(raw, "validate")).close());
            assertEquals(FencingSqlState.CONFIGURATION, replaced.getSQLState(), "a guard that always passes is found");
            s.execute("DROP TABLE " + TABLE);
            s.execute("DROP FUNCTION " + function);
            s.execute("DROP FUNCTION " + before);
            s.execute("DROP TABLE IF EXISTS gs_shared");
        }
    }
}
