package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        s.execute("DROP FUNCTION IF EXISTS " + function);
    }

    @Override
    String objectsQuery() {
        return "SELECT relname FROM pg_class WHERE relname LIKE ? ORDER BY 1";
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

    @Override
    Class<?> vendorConnectionType() {
        return org.postgresql.PGConnection.class;
    }

    @Override
    Class<?> vendorStatementType() {
        return org.postgresql.PGStatement.class;
    }

    @Override
    Class<?> vendorResultSetType() {
        return org.postgresql.jdbc.PgResultSet.class;
    }

    @Test
    void statementsThatChangeNoDataPassWithoutAToken_C5() throws Exception {
        String before = snapshot();
        try (Connection c = connect(Attacker.NO_TOKEN); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("LOCK TABLE " + table + " IN SHARE MODE");
            s.execute("PREPARE reader (int) AS SELECT balance FROM " + table + " WHERE id = $1");
            s.execute("DEALLOCATE reader");
            s.execute("DECLARE rows CURSOR FOR SELECT * FROM " + table);
            s.execute("FETCH 1 FROM rows");
            s.execute("CLOSE rows");
            c.rollback();
            c.setAutoCommit(true);
            s.execute("VACUUM " + table);
            s.execute("NOTIFY fencing_bypass_test");
        } catch (SQLException e) {
            throw new AssertionError("a statement that changes no data was refused: " + e, e);
        }
        assertEquals(before, snapshot());
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

    @Test
    void copyFromRunsWithTheCurrentToken_C5() throws Exception {
        try (Connection c = connect(Attacker.CURRENT_TOKEN); Statement s = c.createStatement()) {
            s.execute("COPY " + table + " FROM PROGRAM 'echo 9,900' WITH (FORMAT csv)");
        }
        try (Statement s = judge.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM " + table + " WHERE id = 9")) {
            rs.next();
            assertEquals(900, rs.getInt(1));
        }
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
                guarded("COPY ... FROM PROGRAM", c -> c.createStatement().execute(
                        "COPY " + table + " FROM PROGRAM 'echo 9,900' WITH (FORMAT csv)")),
                guarded("COPY (DELETE ... RETURNING) TO STDOUT", c -> c.createStatement().execute(
                        "COPY (DELETE FROM " + table + " RETURNING *) TO STDOUT")),
                guarded("DO block", c -> c.createStatement().execute("DO $$ BEGIN " + update + "; END $$")),
                guarded("PREPARE of a write", c -> c.createStatement().execute("PREPARE w AS " + update)),
                guarded("EXECUTE of a prepared statement", c -> {
                    c.createStatement().execute("PREPARE r AS SELECT 1");
                    c.createStatement().execute("EXECUTE r");
                }),
                cannotGuard("UPDATE ONLY, which the parser cannot read", c -> c.createStatement().executeUpdate(
                        "UPDATE ONLY " + table + " SET balance = 0")),
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
                        "COPY fencing_epoch FROM PROGRAM 'echo x,99' WITH (FORMAT csv)")));
    }
}
