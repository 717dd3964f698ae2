package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The bypass suite on PostgreSQL, with its own forms (data-modifying WITH, SELECT INTO, ON CONFLICT, COPY, DO,
 * PREPARE/EXECUTE, standard_conforming_strings) and pgjdbc's vendor API; each attempt inside a transaction is also
 * judged by the transaction's own {@code pg_stat_xact_user_tables} counters.
 */
@RequiresPostgres
class PostgresBypassTest extends BypassTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    void createProcedures() throws SQLException {
        String body = " LANGUAGE plpgsql AS $$ BEGIN EXECUTE format('UPDATE %I SET balance = balance + %s', t, n);";
        TestDatabase.exec(raw, "CREATE PROCEDURE " + procedure + "(t text, n int)" + body + " END $$",
                "CREATE FUNCTION " + function + "(t text, n int) RETURNS int" + body + " RETURN n; END $$");
    }

    @Override
    void dropProcedures(Statement s) throws SQLException {
        s.execute("DROP PROCEDURE IF EXISTS " + procedure);
        s.execute("DROP DOMAIN IF EXISTS " + table + "_d CASCADE");
        s.execute("DROP FUNCTION IF EXISTS " + table + "_imm CASCADE");
        s.execute("DROP TABLE IF EXISTS " + table + "_x");
        s.execute("DROP FUNCTION IF EXISTS " + function);
    }

    @Override
    String objectsQuery() {
        // Temporary tables belong to the attacker's session (and go with it, a moment after it closes): not shared.
        return "SELECT relname FROM pg_class WHERE relname LIKE ? AND relpersistence <> 't' ORDER BY 1";
    }

    @Override
    void assertNothingWrittenInThisTransaction(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)"
                + " FROM pg_stat_xact_user_tables WHERE relname = ? OR relname = 'fencing_epoch'")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertEquals(0, rs.getLong(1), "rows this transaction inserted, updated or deleted");
            }
        }
    }

    @Override
    boolean supportsKeyColumnIndexes() {
        return false;
    }

    @Test
    void statementsThatChangeNoDataPassWithoutAToken_C5() throws Exception {
        String before = snapshot();
        try (Connection c = connect(Attacker.NO_TOKEN); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("PREPARE reader (int) AS SELECT balance FROM " + table + " WHERE id = $1");
            s.execute("DEALLOCATE reader");
            s.execute("DECLARE rows CURSOR FOR SELECT * FROM " + table);
            s.execute("FETCH 1 FROM rows");
            s.execute("CLOSE rows");
            c.rollback();
            c.setAutoCommit(true);
            s.execute("NOTIFY fencing_bypass_test");
        } catch (SQLException e) {
            throw new AssertionError("a statement that changes no data was refused: " + e, e);
        }
        assertEquals(before, snapshot());
        // Table and row locks are refused in read-only work (and a token-less lock could hold writers off): they
        // need a current token (SPEC C10).
        try (Connection c = connect(Attacker.NO_TOKEN); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            assertEquals(FencingSqlState.INVALID_TOKEN, assertThrows(SQLException.class,
                    () -> s.execute("LOCK TABLE " + table + " IN SHARE MODE")).getSQLState());
            c.rollback();
        }
    }

    /** An IMMUTABLE function (as index expressions require) that calls the writing function. */
    private String immutableWriter() {
        return "CREATE OR REPLACE FUNCTION " + table + "_imm(int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$BEGIN"
                + " PERFORM " + function + "('" + table + "', 1); RETURN $1; END$$";
    }

    @Override
    List<Attempt> databaseIncrements() {
        String increment = "UPDATE " + table + " SET balance = balance + 1";
        return List.of(
                c -> c.createStatement().execute("DO $$ BEGIN " + increment + "; END $$"),
                c -> {
                    Statement s = c.createStatement();
                    s.execute("PREPARE increment AS " + increment);
                    s.execute("EXECUTE increment");
                    s.execute("DEALLOCATE increment");
                },
                c -> c.createStatement().executeQuery("WITH w AS (" + increment + " RETURNING id) SELECT * FROM w")
                        .close(),
                c -> c.createStatement().executeQuery("EXPLAIN ANALYZE " + increment).close());
    }

    @Override
    List<Path> databasePaths() {
        String update = update();
        return List.of(
                protectedPath("a view over the epoch table", c -> c.createStatement().execute(
                        "CREATE VIEW " + table + "_ev AS SELECT * FROM fencing_epoch")),
                protectedPath("an inheritance child of the epoch table", c -> c.createStatement().execute(
                        "CREATE TABLE " + table + "_child () INHERITS (fencing_epoch)")),
                protectedPath("replacing the function that protects the marks", c -> c.createStatement().execute(
                        "CREATE OR REPLACE FUNCTION fencing_protect_mark() RETURNS trigger LANGUAGE plpgsql AS"
                                + " $$BEGIN RETURN COALESCE(NEW, OLD); END$$")),
                protectedPath("dropping the function that protects the marks", c -> c.createStatement().execute(
                        "DROP FUNCTION fencing_protect_mark() CASCADE")),
                new Path("the epoch table's triggers disabled under a Unicode-escaped name", Expect.CANNOT_GUARD,
                        c -> c.createStatement().execute("ALTER TABLE U&\"fencing\\005fepoch\" DISABLE TRIGGER ALL")),
                new Path("a write to a Unicode-escaped table name", Expect.CANNOT_GUARD,
                        c -> c.createStatement().execute("UPDATE U&\"" + table + "\" SET balance = 0")),
                guarded("UPDATE ... RETURNING through executeQuery", c -> c.createStatement().executeQuery(
                        update + " RETURNING id")),
                guarded("EXPLAIN with a quoted ANALYZE option", c -> c.createStatement().execute(
                        "EXPLAIN (\"analyze\") " + update)),
                guarded("EXPLAIN with a U& quoted ANALYZE option", c -> c.createStatement().execute(
                        "EXPLAIN (U&\"\\0061nalyze\", \"costs\" off) " + update)),
                guarded("EXPLAIN with a quoted ANALYZE option, prepared", c -> c.prepareStatement(
                        "EXPLAIN (\"analyze\" true) " + update).execute()),
                guarded("EXPLAIN without ANALYZE", c -> c.createStatement().execute("EXPLAIN " + update)),
                guarded("an UPDATE hidden behind a $ after a non-ASCII identifier", c -> c.createStatement().execute(
                        "SELECT 1 AS \u00e9$x$; " + update + "; SELECT 2 AS b$x$")),
                guarded("an UPDATE hidden behind a $ after a no-break space", c -> c.createStatement().execute(
                        "SELECT 1 AS a\u00a0$x$; " + update + "; SELECT 2 AS b$x$")),
                guarded("data-modifying WITH before SELECT", c -> c.createStatement().executeQuery(
                        "WITH w AS (" + update + " RETURNING id) SELECT * FROM w")),
                guarded("data-modifying WITH before INSERT", c -> c.createStatement().executeUpdate(
                        "WITH w AS (DELETE FROM " + table + " WHERE id = 2 RETURNING id, balance) INSERT INTO " + table
                                + " SELECT id + 10, balance FROM w")),
                guarded("data-modifying WITH before UPDATE", c -> c.createStatement().executeUpdate(
                        "WITH w AS (DELETE FROM " + table + " WHERE id = 2 RETURNING id) UPDATE " + table
                                + " SET balance = 0 WHERE id NOT IN (SELECT id FROM w)")),
                guarded("read-only WITH before DELETE", c -> c.createStatement().executeUpdate(
                        "WITH w AS (SELECT 1 AS id) DELETE FROM " + table + " WHERE id IN (SELECT id FROM w)")),
                guarded("SELECT ... INTO", c -> c.createStatement().execute(
                        "SELECT * INTO " + table + "_into FROM " + table)),
                guarded("INSERT ... ON CONFLICT DO UPDATE", c -> c.createStatement().executeUpdate(
                        "INSERT INTO " + table + " VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET balance = 0")),
                cannotGuard("COPY ... FROM PROGRAM", c -> c.createStatement().execute(
                        "COPY " + table + " FROM PROGRAM 'echo 9,900' WITH (FORMAT csv)")),
                guarded("COPY (DELETE ... RETURNING) TO STDOUT", c -> c.createStatement().execute(
                        "COPY (DELETE FROM " + table + " RETURNING *) TO STDOUT")),
                guarded("DO block", c -> c.createStatement().execute("DO $$ BEGIN " + update + "; END $$")),
                guarded("PREPARE of a write", c -> c.createStatement().execute("PREPARE w AS " + update)),
                guarded("EXECUTE of a prepared statement", c -> {
                    c.createStatement().execute("PREPARE r AS SELECT 1");
                    c.createStatement().execute("EXECUTE r");
                }),
                guarded("UPDATE ONLY, which the parser cannot read (sent after the locking read)",
                        c -> c.createStatement().executeUpdate("UPDATE ONLY " + table + " SET balance = 0")),
                guarded("a text the parser cannot read, in a prepared statement", c -> c.prepareStatement(
                        "DELETE FROM ONLY " + table + " WHERE id = ?").execute()),
                guarded("a text the parser cannot read after a write, in one text", c -> c.createStatement().execute(
                        update + "; UPDATE ONLY " + table + " SET balance = 0")),
                guarded("a write to the session's own temporary table still needs a token that is not stale",
                        c -> {
                            withCurrentToken(c, "CREATE TEMP TABLE " + table + " (id int, balance int)");
                            c.createStatement().executeUpdate("INSERT INTO pg_temp." + table + " VALUES (1, 1)");
                        }),
                guarded("a temporary table shadowing the real one, then pg_temp put last in the search path",
                        c -> {
                            withCurrentToken(c, "CREATE TEMP TABLE " + table + " (id int, balance int)");
                            c.createStatement().executeQuery("SELECT set_config('search_path', current_schema()"
                                    + " || ', pg_temp', false)");
                            c.createStatement().executeUpdate("UPDATE " + table + " SET balance = 0");
                        }),
                guarded("a temporary table shadowing the real one, the real one named with its schema",
                        c -> {
                            withCurrentToken(c, "CREATE TEMP TABLE " + table + " (id int, balance int)");
                            c.createStatement().executeUpdate("UPDATE " + schema() + "." + table + " SET balance = 0");
                        }),
                guarded("a temporary table named with another session's pg_temp_N schema", c -> {
                    withCurrentToken(c, "CREATE TEMP TABLE " + table + " (id int, balance int)");
                    c.createStatement().executeUpdate("UPDATE pg_temp_1." + table + " SET balance = 0");
                }),
                guarded("a prepared write to a temporary table that is dropped before it runs", c -> {
                    withCurrentToken(c, "CREATE TEMP TABLE " + table + " (id int, balance int)");
                    PreparedStatement write = c.prepareStatement("UPDATE " + table + " SET balance = 0");
                    withCurrentToken(c, "DROP TABLE pg_temp." + table);
                    write.executeUpdate();
                }),
                guarded("a batched write to a temporary table that is dropped before it runs", c -> {
                    withCurrentToken(c, "CREATE TEMP TABLE " + table + " (id int, balance int)");
                    Statement batch = c.createStatement();
                    batch.addBatch("UPDATE " + table + " SET balance = 0");
                    withCurrentToken(c, "DROP TABLE pg_temp." + table);
                    batch.executeBatch();
                }),
                guarded("a temporary table whose trigger writes the real one", c -> {
                    withCurrentToken(c, "CREATE TEMP TABLE " + table + "_t (id int)",
                            "CREATE FUNCTION pg_temp." + table + "_trg() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN "
                                    + update + "; RETURN NEW; END$$",
                            "CREATE TRIGGER w AFTER INSERT ON " + table + "_t FOR EACH ROW EXECUTE FUNCTION pg_temp."
                                    + table + "_trg()");
                    c.createStatement().executeUpdate("INSERT INTO " + table + "_t VALUES (1)");
                }),
                guarded("a temporary table whose default calls a function that writes", c -> {
                    withCurrentToken(c, "CREATE TEMP TABLE " + table + "_t (id int, b int DEFAULT " + function + "('"
                            + table + "', 1))");
                    c.createStatement().executeUpdate("INSERT INTO " + table + "_t (id) VALUES (1)");
                }),
                guarded("EXPLAIN with a quoted analyze option (found by review)", c -> c.createStatement().execute(
                        "EXPLAIN (\"analyze\") DELETE FROM " + table)),
                guarded("EXPLAIN with a Unicode-escaped analyze option", c -> c.prepareStatement(
                        "EXPLAIN (U&\"\\0061nalyze\" on) DELETE FROM " + table + " WHERE true").execute()),
                guarded("EXPLAIN with a quoted analyze option of CREATE TABLE AS", c -> c.createStatement().execute(
                        "EXPLAIN (\"analyze\" on) CREATE TABLE " + table + "_x AS SELECT 1 AS x")),
                guarded("a temporary table whose index expression calls a function that writes (found by review)",
                        c -> {
                            withCurrentToken(c, immutableWriter(),
                                    "CREATE TEMP TABLE " + table + "_t (id int)",
                                    "CREATE INDEX ON " + table + "_t (" + table + "_imm(id))");
                            c.createStatement().executeUpdate("INSERT INTO " + table + "_t VALUES (1)");
                        }),
                guarded("a temporary table with an array of a domain whose check writes (found by review)", c -> {
                    withCurrentToken(c, immutableWriter(), "DROP DOMAIN IF EXISTS " + table + "_d CASCADE",
                            "CREATE DOMAIN " + table + "_d AS int CHECK (" + table
                            + "_imm(VALUE) > 0)", "CREATE TEMP TABLE " + table + "_t (a " + table + "_d[])");
                    c.createStatement().executeUpdate("INSERT INTO " + table + "_t VALUES (ARRAY[1])");
                }),
                guarded("a temporary table whose partial index predicate calls a function that writes", c -> {
                    withCurrentToken(c, immutableWriter(), "CREATE TEMP TABLE " + table + "_t (id int)",
                            "CREATE INDEX ON " + table + "_t (id) WHERE " + table + "_imm(id) > 0");
                    c.createStatement().executeUpdate("INSERT INTO " + table + "_t VALUES (1)");
                }),
                guarded("a temporary table whose check constraint calls a function that writes", c -> {
                    withCurrentToken(c, immutableWriter(), "CREATE TEMP TABLE " + table + "_t (id int CHECK ("
                            + table + "_imm(id) > 0))");
                    c.createStatement().executeUpdate("INSERT INTO " + table + "_t VALUES (1)");
                }),
                guarded("a temporary table whose row-security policy calls a function that writes", c -> {
                    withCurrentToken(c, immutableWriter(), "CREATE TEMP TABLE " + table + "_t (id int)",
                            "CREATE POLICY p ON " + table + "_t WITH CHECK (" + table + "_imm(id) > 0)",
                            "ALTER TABLE " + table + "_t ENABLE ROW LEVEL SECURITY",
                            "ALTER TABLE " + table + "_t FORCE ROW LEVEL SECURITY");
                    c.createStatement().executeUpdate("INSERT INTO " + table + "_t VALUES (1)");
                }),
                guarded("a write to a temporary table with a writing WITH on the real one", c -> {
                    withCurrentToken(c, "CREATE TEMP TABLE " + table + "_t (id int, balance int)");
                    c.createStatement().executeUpdate("WITH d AS (DELETE FROM " + table + " RETURNING *) INSERT INTO "
                            + table + "_t SELECT * FROM d");
                }),
                guarded("CREATE TEMP TABLE AS with a writing WITH", c -> c.createStatement().execute(
                        "CREATE TEMP TABLE " + table + "_t AS WITH d AS (DELETE FROM " + table + " RETURNING *)"
                                + " SELECT * FROM d")),
                guarded("SELECT INTO TEMP with a writing WITH", c -> c.createStatement().execute(
                        "WITH d AS (DELETE FROM " + table + " RETURNING *) SELECT * INTO TEMP " + table + "_t FROM d")),
                guarded("a write prepared with the current token, then EXECUTEd", c -> {
                    withCurrentToken(c, "PREPARE w AS " + update);
                    c.createStatement().execute("EXECUTE w");
                }),
                guarded("a write prepared with the current token, then EXECUTEd in a prepared statement", c -> {
                    withCurrentToken(c, "PREPARE w AS " + update);
                    c.prepareStatement("EXECUTE w").execute();
                }),
                cannotGuard("strings read differently after standard_conforming_strings = off", c -> {
                    c.createStatement().execute("SET standard_conforming_strings = off");
                    c.createStatement().execute("SELECT '\\' ';" + update + ";SELECT ''");
                }),
                cannotGuard("the same trick with set_config in a query", c -> {
                    c.createStatement().executeQuery("SELECT set_config('standard_conforming_strings', 'off', false)");
                    c.createStatement().execute("SELECT '\\' ';" + update + ";SELECT ''");
                }),
                protectedPath("CopyManager through unwrap", c -> new org.postgresql.copy.CopyManager(
                        c.unwrap(org.postgresql.core.BaseConnection.class)).copyIn("COPY " + table + " FROM STDIN",
                        new java.io.StringReader("9\t900\n"))),
                protectedPath("data-modifying WITH on the epoch table", c -> c.createStatement().executeQuery(
                        "WITH w AS (DELETE FROM fencing_epoch RETURNING *) SELECT * FROM w")),
                protectedPath("DO block naming the epoch table", c -> c.createStatement().execute(
                        "DO $$ BEGIN DELETE FROM public.Fencing_Epoch; END $$")),
                protectedPath("COPY into the epoch table", c -> c.createStatement().execute(
                        "COPY fencing_epoch FROM STDIN WITH (FORMAT csv)")));
    }

    /** Runs set-up statements on the attacker's connection inside a scope holding the current token. */
    private void withCurrentToken(Connection c, String... sql) throws SQLException {
        try (Fencing.Scope scope = Fencing.scope(resource, HIGH_WATER_MARK); Statement s = c.createStatement()) {
            for (String each : sql) {
                s.execute(each);
            }
        }
    }

    /** The schema the test's table lives in, asked on the judge's connection. */
    private String schema() throws SQLException {
        try (Statement s = judge.createStatement(); ResultSet rs = s.executeQuery("SELECT current_schema()")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
