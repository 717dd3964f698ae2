package dev.fencing.sql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class GuardRewriterTest {
    private static final String PG_GUARD =
            "EXISTS (SELECT 1 FROM \"fencing_epoch\" WHERE resource = ? AND epoch = ? FOR SHARE)";
    private static final String H2_GUARD =
            "EXISTS (SELECT 1 FROM \"FENCING_EPOCH\" WHERE resource = ? AND epoch = ? FOR UPDATE)";

    private final SqlAnalyzer pg = new SqlAnalyzer(Dialect.POSTGRESQL, EpochTable.of("fencing_epoch"), 100);
    private final SqlAnalyzer h2 = new SqlAnalyzer(Dialect.H2, EpochTable.of("fencing_epoch"), 100);

    private static int[] userPositions(GuardedSql guarded) {
        int[] positions = new int[guarded.userParameterCount()];
        for (int i = 1; i <= positions.length; i++) {
            positions[i - 1] = guarded.actualIndex(i);
        }
        return positions;
    }

    @Test
    void updateGetsTheGuardAfterItsWhere_C3() {
        GuardedSql guarded = pg.analyze("UPDATE t SET a=? WHERE b=?").joined();
        assertEquals("UPDATE t SET a = ? WHERE (b = ?) AND " + PG_GUARD, guarded.sql());
        assertArrayEquals(new int[] {1, 2}, userPositions(guarded));
        assertEquals(3, guarded.resourceIndex());
        assertEquals(4, guarded.tokenIndex());
    }

    @Test
    void updateWithoutWhereGetsTheGuardAsItsWhere_C3() {
        GuardedSql guarded = h2.analyze("update t set a = 1").joined();
        assertEquals("UPDATE t SET a = 1 WHERE " + H2_GUARD, guarded.sql());
        assertEquals(1, guarded.resourceIndex());
        assertEquals(2, guarded.tokenIndex());
    }

    @Test
    void orInTheWhereStaysInsideParentheses_C3() {
        assertEquals("DELETE FROM t WHERE (a = ? OR b = ?) AND " + H2_GUARD,
                h2.analyze("DELETE FROM t WHERE a = ? OR b = ?").joined().sql());
    }

    @Test
    void updateFromAndDeleteUsingAreJoined_C3() {
        assertEquals("UPDATE t SET a = u.a FROM u WHERE (t.id = u.id) AND " + PG_GUARD,
                pg.analyze("UPDATE t SET a = u.a FROM u WHERE t.id = u.id").joined().sql());
        assertEquals("DELETE FROM t USING u WHERE (t.id = u.id) AND " + PG_GUARD,
                pg.analyze("DELETE FROM t USING u WHERE t.id = u.id").joined().sql());
    }

    @Test
    void insertSelectGetsTheGuardInItsWhere_C3() {
        GuardedSql guarded = pg.analyze("INSERT INTO t(a) SELECT ? FROM s WHERE x=?").joined();
        assertEquals("INSERT INTO t (a) SELECT ? FROM s WHERE (x = ?) AND " + PG_GUARD, guarded.sql());
        assertArrayEquals(new int[] {1, 2}, userPositions(guarded));
        assertEquals(3, guarded.resourceIndex());
        assertEquals(4, guarded.tokenIndex());
        assertNotNull(h2.analyze("INSERT INTO t (a, b) SELECT a, b + 1 FROM s").joined());
    }

    @Test
    void insertSelectThatCouldYieldARowAnywayIsNotJoined_C3() {
        assertNull(pg.analyze("INSERT INTO t (n) SELECT count(*) FROM s").joined());
        assertNull(pg.analyze("INSERT INTO t SELECT DISTINCT a FROM s").joined());
        assertNull(pg.analyze("INSERT INTO t SELECT a FROM s GROUP BY a").joined());
        assertNull(pg.analyze("INSERT INTO t SELECT a FROM s LIMIT 1").joined());
        assertNull(pg.analyze("INSERT INTO t SELECT a FROM s UNION SELECT b FROM u").joined());
        assertNull(pg.analyze("INSERT INTO t WITH x AS (SELECT 1 AS a) SELECT a FROM x").joined());
    }

    @Test
    void insertValuesAndUpsertsAreNotJoined_C3() {
        assertNull(pg.analyze("INSERT INTO t (a) VALUES (?)").joined());
        assertNull(pg.analyze("INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET b = 2").joined());
        assertNull(pg.analyze("CREATE TABLE x (a int)").joined());
        assertNull(pg.analyze("CALL p(?)").joined());
    }

    @Test
    void mergeWithOneWhenClauseGetsTheGuardInIt_C3() {
        GuardedSql update = h2.analyze(
                "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED AND s.a > ? THEN UPDATE SET a = ?").joined();
        assertEquals("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED AND (s.a > ?) AND " + H2_GUARD
                + " THEN UPDATE SET a = ?", update.sql());
        assertArrayEquals(new int[] {1, 4}, userPositions(update));
        assertEquals(2, update.resourceIndex());
        assertEquals(3, update.tokenIndex());
        GuardedSql insert = pg.analyze(
                "MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)").joined();
        assertEquals("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED AND " + PG_GUARD
                + " THEN INSERT (id) VALUES (s.id)", insert.sql());
    }

    @Test
    void mergeWithSeveralWhenClausesIsNotJoined_C3() {
        assertNull(pg.analyze("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET a = s.a"
                + " WHEN NOT MATCHED THEN INSERT (id, a) VALUES (s.id, s.a)").joined());
    }

    @Test
    void numberedOrNamedParametersGetNoJoinedForm_C3() {
        assertNull(pg.analyze("UPDATE t SET a = $1 WHERE b = $2").joined());
        assertNull(pg.analyze("UPDATE t SET a = :a").joined());
        assertNull(h2.analyze("UPDATE t SET a = ?1").joined());
    }

    @Test
    void statementsThatAreNotSingleWritesGetNoJoinedForm_C3() {
        assertNull(pg.analyze("UPDATE t SET a = 1; UPDATE u SET b = 2").joined());
        assertNull(pg.analyze("UPDATE t SET a = 1 RETURNING a").joined());
        assertNull(pg.analyze("WITH x AS (SELECT 1) UPDATE t SET a = 1").joined());
    }

    @Test
    void withLiteralsWritesAValidResourceAndRefusesAnyOther_C8() {
        GuardedSql guarded = pg.analyze("DELETE FROM t WHERE a = 1").joined();
        assertEquals("DELETE FROM t WHERE (a = 1) AND EXISTS (SELECT 1 FROM \"fencing_epoch\""
                + " WHERE resource = 'billing-shard-3' AND epoch = 42 FOR SHARE)",
                guarded.withLiterals("billing-shard-3", 42));
        // Quoting for one session's rules is not enough: with standard_conforming_strings=off (or on MariaDB)
        // a backslash escapes the quote that doubling added, so nothing but the safe characters is written.
        for (String crafted : new String[] {"o'brien", "x\\' OR true --", "a\\b", "caf\u00e9", "a b", "", "\u02bc"}) {
            assertThrows(IllegalArgumentException.class, () -> guarded.withLiterals(crafted, 42), crafted);
        }
    }

    @Test
    void mariadbGuardKeepsLockInShareMode_C4() {
        SqlAnalyzer mariadb = new SqlAnalyzer(Dialect.MARIADB, EpochTable.of("fencing_epoch"), 10);
        GuardedSql guarded = mariadb.analyze("UPDATE t SET a = ? WHERE b = ?").joined();
        assertEquals("UPDATE t SET a = ? WHERE (b = ?) AND EXISTS (SELECT 1 FROM `fencing_epoch`"
                + " WHERE resource = ? AND epoch = ? LOCK IN SHARE MODE)", guarded.sql());
        assertEquals(3, guarded.resourceIndex());
        assertEquals(4, guarded.tokenIndex());
    }

    @Test
    void qualifiedEpochTableIsGuarded_C8() {
        SqlAnalyzer analyzer = new SqlAnalyzer(Dialect.POSTGRESQL, EpochTable.of("fence.epochs"), 10);
        assertEquals("DELETE FROM t WHERE EXISTS (SELECT 1 FROM \"fence\".\"epochs\" WHERE resource = ? AND epoch = ?"
                + " FOR SHARE)", analyzer.analyze("DELETE FROM t").joined().sql());
    }
}
