package dev.fencing.sql;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The guard statement sent ahead of a caller's untouched text, and how its values are written. */
class GuardedSqlTest {
    private final EpochSql pg = new EpochSql(Dialect.POSTGRESQL, EpochTable.of("fencing_epoch"));

    @Test
    void thePrefixGuardCallsTheTablesGuardFunctionWithTypedArguments_C9() {
        GuardedSql guard = pg.prefixGuard();
        assertEquals(List.of(GuardedSql.Marker.RESOURCE, GuardedSql.Marker.TOKEN, GuardedSql.Marker.NONCE,
                GuardedSql.Marker.RESOURCE, GuardedSql.Marker.TOKEN), guard.markers());
        assertEquals("SELECT \"fencing_guard_fencing_epoch\"(CAST('billing-shard-3' AS pg_catalog.text),"
                + " CAST(42 AS pg_catalog.int8), CAST(9001 AS pg_catalog.int8)),"
                + " pg_catalog.set_config('fencing.guard_record', pg_catalog.concat(',', CAST('billing-shard-3' AS"
                + " pg_catalog.text), ' ', CAST(CAST(42 AS pg_catalog.int8) AS pg_catalog.text), ','), true)",
                guard.withLiterals("billing-shard-3", 42, 9001),
                "pg_catalog's types, whatever the session's search_path; the checked resource and token recorded for"
                        + " the enforcement triggers (issue 28)");
        EpochSql qualified = new EpochSql(Dialect.POSTGRESQL, EpochTable.resolved("app", "fencing_epoch"));
        assertTrue(qualified.prefixGuard().sql().startsWith("SELECT \"app\".\"fencing_guard_fencing_epoch\"("),
                "the guard function is named in the epoch table's schema: " + qualified.prefixGuard());
        assertNull(new EpochSql(Dialect.H2, EpochTable.of("fencing_epoch")).prefixGuard(),
                "H2 runs no two statements in one round trip: it locks first");
    }

    @Test
    void aLongTableNameGetsAGuardFunctionOfItsOwnWithinPostgresLimit() {
        String a = "t".repeat(60) + "a";
        String b = "t".repeat(60) + "b";
        String guardA = new EpochSql(Dialect.POSTGRESQL, EpochTable.of(a)).prefixGuard().sql();
        String guardB = new EpochSql(Dialect.POSTGRESQL, EpochTable.of(b)).prefixGuard().sql();
        String nameA = guardA.substring(guardA.indexOf('"') + 1, guardA.indexOf('"', guardA.indexOf('"') + 1));
        String nameB = guardB.substring(guardB.indexOf('"') + 1, guardB.indexOf('"', guardB.indexOf('"') + 1));
        assertEquals(63, nameA.length(), nameA);
        assertTrue(nameA.startsWith("fencing_guard_ttt"), nameA);
        assertFalse(nameA.equals(nameB), "two long table names that share a prefix must not share a guard: " + nameA);
    }

    @Test
    void theGuardFunctionIsCreatedWithTheProtectionAndCheckedWithIt_C9() {
        EpochSql qualified = new EpochSql(Dialect.POSTGRESQL, EpochTable.resolved("app", "fencing_epoch"));
        String create = qualified.protect().stream().filter(s -> s.contains("fencing_guard_")).findFirst().orElseThrow();
        assertTrue(create.startsWith("CREATE OR REPLACE FUNCTION \"app\".\"fencing_guard_fencing_epoch\"(resource_name"
                + " text, token bigint, nonce bigint) RETURNS integer LANGUAGE plpgsql VOLATILE SECURITY INVOKER SET search_path ="
                + " pg_catalog"), create);
        assertTrue(create.contains("USING ERRCODE = '" + EpochSql.GUARD_STALE_STATE + "', DETAIL = CAST(found_mark AS"
                + " text), HINT = CAST(nonce AS text)") && create.contains("USING ERRCODE = '"
                + EpochSql.GUARD_BEHIND_STATE + "', HINT = CAST(nonce AS text)"), "both verdicts echo the nonce: " + create);
        assertTrue(create.contains("FOR SHARE"), create);
        long markers = qualified.protectionCheck().chars().filter(c -> c == '?').count();
        assertEquals(qualified.protectionParameters().size(), markers, "one parameter per marker of the check");
        assertTrue(qualified.protectionParameters().contains("\"app\".\"fencing_guard_fencing_epoch\"(text,bigint,bigint)"));
        assertTrue(EpochSql.PROTECTION_NAMES.contains("fencing_guard_"), "DDL on the guard function writes the fence");
    }

    @Test
    void theSentTextIsProvedToBeTheGuardThenTheCallersTextUnchanged_C8() {
        String guard = pg.prefixGuard().withLiterals("r", 7, 3);
        String text = "INSERT INTO t (f2[1], f3.if1) VALUES (?, E'it\\'s'); -- the caller's own comment";
        String sent = GuardedSql.ahead(guard, text);
        assertEquals(guard + ";" + text, sent);
        assertTrue(GuardedSql.isGuardThenText(sent, guard, text));
        // The check fails for any change to either side or to the seam.
        assertFalse(GuardedSql.isGuardThenText(sent.replace("f2[1]", "f2"), guard, text), "reprinted text");
        assertFalse(GuardedSql.isGuardThenText(guard + ";" + text.strip() + " ", guard, text), "white space added");
        assertFalse(GuardedSql.isGuardThenText(guard + " " + text, guard, text), "no separator");
        assertFalse(GuardedSql.isGuardThenText(guard + ";" + text.substring(1), guard, text), "text cut");
        assertFalse(GuardedSql.isGuardThenText(guard.replace("7", "8") + ";" + text, guard, text), "guard changed");
        assertFalse(GuardedSql.isGuardThenText(text + ";" + guard, guard, text), "order swapped");
        assertFalse(GuardedSql.isGuardThenText(guard + ";", guard, text), "text missing");
    }

    @Test
    void aGuardThatLeavesAStringOrCommentOpenIsRefused_C8() {
        for (String bad : new String[] {"SELECT 'x", "SELECT 1 -- ", "SELECT 1 /* ", "SELECT 1; SELECT 2",
            "SELECT \"x", "SELECT $$x"}) {
            assertThrows(IllegalArgumentException.class, () -> new GuardedSql(bad, List.of()), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> new GuardedSql("SELECT '?'", List.of(GuardedSql.Marker.TOKEN)),
                "a ? inside a string is no marker");
    }

    @Test
    void withLiteralsWritesAValidResourceAndRefusesAnyOther_C8() {
        GuardedSql guard = pg.prefixGuard();
        // Quoting for one session's rules is not enough: with standard_conforming_strings=off (or on MariaDB)
        // a backslash escapes the quote that doubling added, so nothing but the safe characters is written.
        for (String crafted : new String[] {"o'brien", "x\\' OR true --", "a\\b", "caf\u00e9", "a b", "", "\u02bc"}) {
            assertThrows(IllegalArgumentException.class, () -> guard.withLiterals(crafted, 42, 1), crafted);
        }
    }

    @Test
    void aGuardWhoseMarkersDoNotMatchItsTextIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new GuardedSql("SELECT ?", List.of()));
    }
}
