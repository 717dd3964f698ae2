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
    void thePrefixGuardLocksAtTheTokenAndNamesWhyItFails_C9() {
        GuardedSql guard = pg.prefixGuard();
        assertEquals(List.of(GuardedSql.Marker.TOKEN, GuardedSql.Marker.RESOURCE, GuardedSql.Marker.TOKEN),
                guard.markers());
        assertEquals("SELECT CAST(COALESCE((SELECT CASE WHEN epoch OPERATOR(pg_catalog.=) 42 THEN '1' ELSE"
                + " 'fencing_guard_failed stale ' OPERATOR(pg_catalog.||) epoch END FROM \"fencing_epoch\" WHERE resource"
                + " OPERATOR(pg_catalog.=) 'billing-shard-3' AND epoch OPERATOR(pg_catalog.>=) 42 AND"
                + " pg_catalog.pg_advisory_xact_lock_shared(1178947139, pg_catalog.hashtext(resource)) IS NOT NULL"
                + " FOR SHARE),"
                + " 'fencing_guard_failed behind') AS integer)", guard.withLiterals("billing-shard-3", 42),
                "pg_catalog's operators, whatever the session's search_path");
        assertNull(new EpochSql(Dialect.H2, EpochTable.of("fencing_epoch")).prefixGuard(),
                "H2 runs no two statements in one round trip: it locks first");
    }

    @Test
    void theSentTextIsProvedToBeTheGuardThenTheCallersTextUnchanged_C8() {
        String guard = pg.prefixGuard().withLiterals("r", 7);
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
            assertThrows(IllegalArgumentException.class, () -> guard.withLiterals(crafted, 42), crafted);
        }
    }

    @Test
    void aGuardWhoseMarkersDoNotMatchItsTextIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new GuardedSql("SELECT ?", List.of()));
    }
}
