package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The catalog checks on PostgreSQL: {@code pg_proc.provolatile}, sequences, attribute notation, inheritance. */
@RequiresPostgres
class PostgresCatalogBypassTest extends CatalogBypassTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    void createWriter() throws SQLException {
        TestDatabase.exec(raw, "CREATE FUNCTION " + writer + "(t text, n int) RETURNS int LANGUAGE plpgsql AS $$"
                + " BEGIN EXECUTE format('UPDATE %I SET balance = balance + %s', t, n); RETURN n; END $$");
    }

    @Override
    String defaultSchema() {
        return "public";
    }

    @Override
    void useSchema(Statement s, String schema) throws SQLException {
        s.execute("SET search_path = " + schema + ", public");
    }

    private long sequenceValue(String sequence) throws SQLException {
        try (Statement s = judge.createStatement(); ResultSet rs = s.executeQuery("SELECT last_value FROM " + sequence)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void setvalAndNextvalNeedACurrentToken_C9_C10() throws Exception {
        String sequence = table + "_seq";
        TestDatabase.exec(raw, "CREATE SEQUENCE " + sequence);
        assertRefused("setval", c -> c.createStatement().executeQuery("SELECT setval('" + sequence + "', 100)"));
        assertEquals(1, sequenceValue(sequence));
        try (Connection c = connect(HIGH_WATER_MARK); Statement s = c.createStatement()) {
            assertEquals(List.of("100"), column(s.executeQuery("SELECT setval('" + sequence + "', 100)")));
        }
        assertEquals(100, sequenceValue(sequence));
        assertRefused("nextval", c -> c.createStatement().executeQuery("SELECT nextval('" + sequence + "')"));
        assertEquals(100, sequenceValue(sequence), "a sequence does not move in read-only work");
        try (Connection c = connect(HIGH_WATER_MARK); Statement s = c.createStatement()) {
            assertEquals(List.of("101"), column(s.executeQuery("SELECT nextval('" + sequence + "')")));
        }
    }

    @Test
    void harmlessBuiltInFunctionsPassWithoutAToken_C9() throws Exception {
        try (Connection c = connect(0); Statement s = c.createStatement()) {
            assertEquals(List.of("1"), column(s.executeQuery("SELECT (random() < 2 AND clock_timestamp() > now()"
                    + " - interval '1 day' AND gen_random_uuid() IS NOT NULL AND pg_advisory_unlock(42) IS NOT NULL)::int")));
            assertEquals(List.of("x"), column(s.executeQuery("SELECT set_config('application_name', 'x', false)")));
            assertEquals(List.of("2"), column(s.executeQuery("SELECT count(*) FROM " + table
                    + " TABLESAMPLE SYSTEM (100)")));
            assertEquals(List.of(""), column(s.executeQuery("SELECT pg_notify('" + table + "', 'x')")));
        }
    }

    @Test
    void userFunctionsNeedATokenWhateverVolatilityTheyDeclare_C9() throws Exception {
        // A STABLE or IMMUTABLE function may still call a volatile one that writes: PostgreSQL does not check.
        TestDatabase.exec(raw, "CREATE FUNCTION " + table + "_w() RETURNS int LANGUAGE plpgsql AS $$ BEGIN UPDATE "
                        + table + " SET balance = balance + 1000; RETURN 1; END $$",
                "CREATE FUNCTION " + table + "_stable() RETURNS int STABLE LANGUAGE sql AS 'SELECT " + table + "_w()'",
                "CREATE FUNCTION " + table + "_imm(x int) RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT x * 2'");
        assertRefused("a STABLE wrapper", c -> c.createStatement().executeQuery("SELECT " + table + "_stable()"));
        assertRefused("an IMMUTABLE user function", c -> c.createStatement().executeQuery("SELECT " + table
                + "_imm(2)"));
        try (Connection c = connect(HIGH_WATER_MARK); Statement s = c.createStatement()) {
            assertEquals(List.of("4"), column(s.executeQuery("SELECT " + table + "_imm(2)")));
        }
    }

    @Test
    void writingFunctionsReachedByAttributeNotationFromOrAnAggregateAreGuarded_C9() throws Exception {
        TestDatabase.exec(raw, "CREATE FUNCTION " + table + "_attr(r " + table + ") RETURNS int LANGUAGE plpgsql AS"
                        + " $$ BEGIN UPDATE " + table + " SET balance = balance + 1; RETURN 1; END $$",
                "CREATE FUNCTION " + table + "_step(s int, v int) RETURNS int LANGUAGE plpgsql AS"
                        + " $$ BEGIN UPDATE " + table + " SET balance = balance + 1; RETURN s + v; END $$",
                "CREATE AGGREGATE " + table + "_agg(int) (SFUNC = " + table + "_step, STYPE = int, INITCOND = '0')");
        assertRefused("attribute notation", c -> c.createStatement().executeQuery(
                "SELECT t." + table + "_attr FROM " + table + " t"));
        assertRefused("in FROM", c -> c.createStatement().executeQuery(
                "SELECT * FROM " + callWriter(writer, 1)));
        assertRefused("an aggregate with a writing step", c -> c.createStatement().executeQuery(
                "SELECT " + table + "_agg(id) FROM " + table));
        assertRefused("query_to_xml runs any text", c -> c.createStatement().executeQuery(
                "SELECT query_to_xml('UPDATE " + table + " SET balance = 0 RETURNING 1', true, false, '')"));
    }

    @Test
    void ddlThatJoinsAnExemptTableToAProtectedOneIsGuarded_C5() throws Exception {
        TestDatabase.exec(raw, "CREATE TABLE " + table + "_p (id INT, balance INT) PARTITION BY LIST (id)");
        assertRefused("INHERIT", c -> c.createStatement().execute(
                "ALTER TABLE " + audit + " INHERIT " + table));
        assertRefused("ATTACH PARTITION", c -> c.createStatement().execute(
                "ALTER TABLE " + table + "_p ATTACH PARTITION " + audit + " FOR VALUES IN (1)"));
        try (Connection c = connect(0); Statement s = c.createStatement()) {
            assertEquals(FencingSqlState.INVALID_TOKEN, assertThrows(SQLException.class, () -> s.execute("CREATE RULE "
                    + audit + "_r AS ON INSERT TO " + audit + " DO ALSO UPDATE " + table + " SET balance = 0"))
                    .getSQLState(), "a rule, which the parser cannot read, needs a token like any DDL");
        }
        try (Statement s = judge.createStatement(); ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM"
                + " pg_inherits WHERE inhrelid = '" + audit + "'::regclass) + (SELECT count(*) FROM pg_rules WHERE"
                + " tablename = '" + audit + "')")) {
            rs.next();
            assertEquals(0, rs.getInt(1), "no inheritance, partition or rule was added");
        }
    }

    @Test
    void anExemptTableWithARuleIsNotExempt_C5() throws Exception {
        try (Connection c = connect(0); Statement s = c.createStatement()) {
            TestDatabase.exec(raw, "CREATE RULE " + audit + "_r AS ON INSERT TO " + audit + " DO ALSO UPDATE " + table
                    + " SET balance = 0");
            assertEquals(FencingSqlState.INVALID_TOKEN, assertThrows(SQLException.class,
                    () -> s.executeUpdate("INSERT INTO " + audit + " VALUES (9, 9)")).getSQLState(),
                    "an insert into the exempt table would run the rule's write to a protected table");
        }
        assertEquals("1:100 2:200 ", rows(table));
    }

    @Test
    void anExemptTableWithChildrenIsNotExempt_C5() throws Exception {
        try (Connection c = connect(0); Statement s = c.createStatement()) {
            TestDatabase.exec(raw, "CREATE TABLE " + table + "_child () INHERITS (" + audit + ")",
                    "INSERT INTO " + table + "_child VALUES (1, 1)");
            assertEquals(FencingSqlState.INVALID_TOKEN, assertThrows(SQLException.class,
                    () -> s.executeUpdate("UPDATE " + audit + " SET balance = 0")).getSQLState(),
                    "an update of the exempt table would reach its new child table");
        }
        assertEquals("1:1 ", rows(table + "_child"));
        assertEquals(FencingSqlState.CONFIGURATION, assertThrows(SQLException.class, () -> connect(0)).getSQLState(),
                "a table with children cannot be configured as exempt");
    }

    @Test
    void ddlOnThisConnectionMakesItAskTheCatalogAgain_C9() throws Exception {
        String changing = table + "_changing";
        TestDatabase.exec(raw, "CREATE FUNCTION " + changing + "() RETURNS int STABLE LANGUAGE sql AS 'SELECT 1'");
        try (Connection c = connect(0); Statement s = c.createStatement()) {
            FencedConnection fenced = c.unwrap(FencedConnection.class);
            fenced.setFencingToken(HIGH_WATER_MARK);
            assertEquals(List.of("1"), column(s.executeQuery("SELECT " + changing + "()")));
            s.execute("CREATE OR REPLACE FUNCTION " + changing + "() RETURNS int LANGUAGE plpgsql AS $$ BEGIN UPDATE "
                    + table + " SET balance = balance + 1; RETURN 2; END $$");
            fenced.clearFencingToken();
            String before = snapshot();
            SQLException refusal = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT " + changing + "()"));
            assertEquals(FencingSqlState.INVALID_TOKEN, refusal.getSQLState());
            assertEquals(before, snapshot());
        }
    }

    @Test
    void aPreparedWritingQueryInATransactionWritesOnceWithACurrentToken_C9() throws Exception {
        try (Connection c = connect(HIGH_WATER_MARK)) {
            c.setAutoCommit(false);
            PreparedStatement ps = c.prepareStatement("SELECT " + writer + "(?, ?)");
            ps.setString(1, table);
            ps.setInt(2, 5);
            assertEquals(List.of("5"), column(ps.executeQuery()));
            c.commit();
        }
        assertEquals(List.of("105", "205"), shifted(rows(table), 0));
    }

    /**
     * A write to the session's temporary table that reads another relation is guarded like any write (SPEC C4):
     * the relation may be a view whose function writes a shared table, and the guard's lock makes an epoch change
     * wait for it (found by review: such a write, sent with the current token, committed after the new owner's
     * mark, since temporary-table writes take no lock). Real threads; the new owner's advance must wait.
     */
    @Test
    void aTemporaryTableWriteThatReadsAViewHoldsAnEpochChangeOff_C4() throws Exception {
        TestDatabase.exec(raw, "CREATE FUNCTION " + table + "_slow() RETURNS int LANGUAGE plpgsql AS $$ BEGIN"
                        + " PERFORM pg_sleep(1.5); UPDATE " + table + " SET balance = balance + 1 WHERE id = 1;"
                        + " RETURN 1; END $$",
                "CREATE VIEW " + table + "_sv AS SELECT " + table + "_slow() AS x");
        try (Connection old = connect(HIGH_WATER_MARK); Statement s = old.createStatement()) {
            s.execute("CREATE TEMPORARY TABLE " + table + "_tmp (x int)");
            long start = System.nanoTime();
            java.util.concurrent.CompletableFuture<Integer> write = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return s.executeUpdate("INSERT INTO " + table + "_tmp SELECT x FROM " + table + "_sv");
                        } catch (SQLException e) {
                            throw new java.util.concurrent.CompletionException(e);
                        }
                    });
            Thread.sleep(400);
            try (Connection next = connect(HIGH_WATER_MARK + 1); Statement n = next.createStatement()) {
                n.executeUpdate("UPDATE " + table + " SET balance = balance WHERE id = 2");
            }
            long advancedAfter = (System.nanoTime() - start) / 1_000_000;
            assertEquals(1, write.get(30, java.util.concurrent.TimeUnit.SECONDS));
            org.junit.jupiter.api.Assertions.assertTrue(advancedAfter >= 1400, "the new owner's advance committed "
                    + advancedAfter + " ms after the old owner's write began, before that write ended (1.5 s)");
        }
        assertEquals("1:101 2:200 ", rows(table));
        assertEquals(HIGH_WATER_MARK + 1, Long.parseLong(snapshot().replaceAll(".* epoch=", "")));
    }

    /**
     * A built-in that runs a query of its own ({@code table_to_xml}, {@code query_to_xml}: STABLE, in pg_catalog)
     * reads a relation the text names only in a string: an exempt or temporary write that calls one is guarded
     * (found by the second review: it reached a writing view without a token). Plain built-ins keep the write exempt.
     */
    @Test
    void anExemptWriteCallingABuiltInThatRunsAQueryIsGuarded_C10() throws Exception {
        TestDatabase.exec(raw, "CREATE VIEW " + table + "_xv AS SELECT " + callWriter(writer, 1) + " AS x");
        String xml = "length(table_to_xml('" + table + "_xv', false, false, '')::text)";
        for (String sql : List.of("INSERT INTO " + audit + " VALUES (1, " + xml + ")",
                "DELETE FROM " + audit + " WHERE balance = " + xml,
                "INSERT INTO " + audit + " VALUES (2, length(query_to_xml('SELECT * FROM " + table
                        + "_xv', false, false, '')::text))")) {
            assertRefused(sql, c -> c.createStatement().executeUpdate(sql));
        }
        try (Connection c = connect(0); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("INSERT INTO " + audit + " VALUES (3, length(to_char(now(), 'YYYY')))"));
        }
        assertEquals("3:4 ", rows(audit));
    }

    /**
     * A cast to a user type or domain runs user code (a domain's CHECK, a cast function): an exempt write that casts
     * to one is guarded (found by the third review: a domain whose CHECK called a writing function wrote the
     * protected table without a token). Casts to built-in types keep the write exempt.
     */
    @Test
    void anExemptWriteCastingToAUserTypeOrDomainIsGuarded_C10() throws Exception {
        TestDatabase.exec(raw, "CREATE DOMAIN " + table + "_dom AS int CHECK (" + callWriter(writer, 1) + " IS NOT NULL)");
        for (String sql : List.of("INSERT INTO " + audit + " VALUES (1, CAST(1 AS " + table + "_dom))",
                "INSERT INTO " + audit + " VALUES (1, '1'::" + table + "_dom)",
                "INSERT INTO " + audit + " VALUES (1, 1::" + defaultSchema() + "." + table + "_dom)",
                "DELETE FROM " + audit + " WHERE balance = 1::" + table + "_dom")) {
            assertRefused(sql, c -> c.createStatement().executeUpdate(sql));
        }
        try (Connection c = connect(0); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("INSERT INTO " + audit + " VALUES (5, CAST('5' AS int) + '1'::int4)"));
        }
        assertEquals("5:6 ", rows(audit));
    }
}
