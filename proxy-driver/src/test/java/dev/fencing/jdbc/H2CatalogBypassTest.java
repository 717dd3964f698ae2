package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The catalog checks on H2: user functions ({@code CREATE ALIAS}) and writing built-ins such as LINK_SCHEMA. A user
 * function that gets the session's {@code Connection}, as every one that writes does, is refused whatever the token
 * (see {@link H2OutsideTheGuardTest}, where one without a connection runs once with the raw driver's result).
 */
class H2CatalogBypassTest extends CatalogBypassTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Override
    void createWriter() throws SQLException {
        TestDatabase.exec(raw, "CREATE ALIAS " + writer + " FOR 'dev.fencing.jdbc.BypassProcedures.bump'");
    }

    /** The writer is {@code BypassProcedures.bump}, which gets the session's {@code Connection}. */
    @Override
    boolean writerRefusedWhateverTheToken() {
        return true;
    }

    @Override
    String defaultSchema() {
        return "PUBLIC";
    }

    @Override
    void useSchema(Statement s, String schema) throws SQLException {
        s.execute("SET SCHEMA_SEARCH_PATH PUBLIC");
        s.execute("SET SCHEMA " + schema);
    }

    @Test
    void everyUserFunctionCountsAsWritingEvenADeterministicOne_C9() throws Exception {
        TestDatabase.exec(raw, "CREATE ALIAS " + table + "_abs DETERMINISTIC FOR 'java.lang.Math.abs(int)'");
        assertRefused("a deterministic alias", c -> c.createStatement().executeQuery(
                "SELECT " + table + "_abs(-1)"));
        try (Connection c = connect(HIGH_WATER_MARK); Statement s = c.createStatement()) {
            assertEquals(List.of("1"), column(s.executeQuery("SELECT " + table + "_abs(-1)")));
        }
    }

    @Test
    void linkSchemaNeedsAToken_C9() throws Exception {
        String linked = table + "_linked";
        TestDatabase.exec(raw, "CREATE SCHEMA " + linked);
        assertRefused("LINK_SCHEMA", c -> c.createStatement().executeQuery("SELECT * FROM LINK_SCHEMA('"
                + linked.toUpperCase() + "', '', '" + raw + "', '', '', 'PUBLIC')"));
        try (Statement s = judge.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT count(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = '" + linked.toUpperCase() + "'")) {
            rs.next();
            assertEquals(0, rs.getInt(1));
        }
    }
}
