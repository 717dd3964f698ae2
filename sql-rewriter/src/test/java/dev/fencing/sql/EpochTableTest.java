package dev.fencing.sql;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Table names as configured and as the database resolved them (SPEC C8, C9). */
class EpochTableTest {
    @Test
    void resolvedNamesAreQuotedExactlyWithoutFolding_C8() {
        EpochTable table = EpochTable.resolved("My\"Schema", "fencing_epoch");
        assertEquals("\"My\"\"Schema\".\"fencing_epoch\"", table.render(Dialect.POSTGRESQL));
        assertEquals("\"My\"\"Schema\".\"fencing_epoch\"", table.render(Dialect.H2));
        assertEquals("`a``b`.`T`", EpochTable.resolved("a`b", "T").render(Dialect.MARIADB));
        assertEquals("My\"Schema", table.storedSchema(Dialect.H2));
        assertEquals("FENCING_EPOCH", EpochTable.of("fencing_epoch").storedTable(Dialect.H2));
        assertThrows(IllegalArgumentException.class, () -> EpochTable.resolved(null, "t"));
    }

    @Test
    void everyStatementAboutAResolvedTableNamesItQualified_C9() {
        EpochSql sql = new EpochSql(Dialect.POSTGRESQL, EpochTable.resolved("app", "fencing_epoch"));
        for (String text : new String[] {sql.lockAtLeast(), sql.advance(), sql.raise(), sql.insertFirst(),
                sql.readMark(), sql.validateTable(), sql.protect().get(1)}) {
            assertTrue(text.contains("\"app\".\"fencing_epoch\""), text);
        }
        assertTrue(sql.prefixGuard().sql().contains("\"app\".\"fencing_guard_fencing_epoch\""), "the guard's function"
                + " lives beside the table and reads it qualified: " + sql.prefixGuard());
        LeaseSql lease = new LeaseSql(Dialect.H2, EpochTable.resolved("APP", "FENCING_LEASE"));
        assertTrue(lease.lockIssued().contains("\"APP\".\"FENCING_LEASE\""), lease.lockIssued());
        assertEquals("APP", lease.tableExistsSchema());
    }

    @Test
    void writesToAResolvedEpochTableAreProtectedTargetsQualifiedOrNot_C5() {
        SqlAnalyzer analyzer = new SqlAnalyzer(Dialect.POSTGRESQL, EpochTable.resolved("public", "fencing_epoch"),
                java.util.List.of(EpochTable.resolved("public", "fencing_lease")), 10);
        for (String text : new String[] {"DELETE FROM fencing_epoch", "UPDATE public.fencing_epoch SET epoch = 1",
                "DELETE FROM \"public\".\"fencing_epoch\"", "DO $$ BEGIN DELETE FROM public.Fencing_Epoch; END $$"}) {
            assertTrue(analyzer.analyze(text).targetTables().contains("fencing_epoch"), text);
        }
        assertTrue(analyzer.analyze("UPDATE other.fencing_lease SET issued = 0").targetTables().contains("fencing_lease"));
    }

    @Test
    void protectionIsOneStatementListPerDialectAndNoneForGeneric_C9() {
        EpochTable table = EpochTable.resolved("s", "fencing_epoch");
        assertEquals(4, new EpochSql(Dialect.POSTGRESQL, table).protect().size(), "protection function, guard"
                + " function, two triggers");
        assertEquals(2, new EpochSql(Dialect.H2, table).protect().size());
        assertEquals(2, new EpochSql(Dialect.MARIADB, table).protect().size());
        assertTrue(new EpochSql(Dialect.GENERIC, table).protect().isEmpty());
        assertEquals(null, new EpochSql(Dialect.GENERIC, table).protectionCheck());
    }
}
