package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The bypass suite on embedded H2, with H2's own forms: delta tables, MERGE ... KEY, EXECUTE IMMEDIATE, RUNSCRIPT.
 * The procedure and function are Java methods that get the session's {@code Connection}, so their calls are refused
 * whatever the token (SPEC C10, see {@link H2OutsideTheGuardTest}).
 */
class H2BypassTest extends BypassTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Override
    Path adjust(Path path) {
        return CALL_PATHS.contains(path.name()) ? cannotGuard(path.name(), path.attempt()) : path;
    }

    /** None: every call of the suite's procedure or function is refused. */
    @Override
    List<Attempt> callIncrements() {
        return List.of();
    }

    /** Call escapes of the function through plain and prepared statements, which H2 resolves everywhere. */
    private List<Path> escapedCalls() {
        return List.of(
                cannotGuard("Statement.execute {call f('t', 1)}", c -> c.createStatement().execute("{call "
                        + function + "('" + stored(table) + "', 1)}")),
                cannotGuard("prepareStatement {call f(?, ?)}", c -> call(c.prepareStatement("{call " + function
                        + "(?, ?)}"), 1).execute()));
    }

    /** The calls are refused with the current token too, and nothing changes. */
    @Test
    void callsOfFunctionsThatGetTheConnectionAreRefusedWithTheCurrentToken_C10() throws Exception {
        List<Path> calls = new ArrayList<>(escapedCalls());
        for (Path path : paths()) {
            if (CALL_PATHS.contains(path.name())) {
                calls.add(path);
            }
        }
        for (Path path : calls) {
            for (boolean inTransaction : new boolean[] {false, true}) {
                attempt(path, Attacker.CURRENT_TOKEN, inTransaction);
            }
        }
    }

    @Override
    void createProcedures() throws SQLException {
        TestDatabase.exec(raw, "CREATE ALIAS " + procedure + " FOR 'dev.fencing.jdbc.BypassProcedures.bump'",
                "CREATE ALIAS " + function + " FOR 'dev.fencing.jdbc.BypassProcedures.bump'");
    }

    @Override
    void dropProcedures(Statement s) throws SQLException {
        s.execute("DROP ALIAS IF EXISTS " + procedure);
        s.execute("DROP ALIAS IF EXISTS " + function);
    }

    @Override
    String objectsQuery() {
        return "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME LIKE ?1"
                + " UNION ALL SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE INDEX_NAME LIKE ?1 ORDER BY 1";
    }

    @Override
    List<Attempt> databaseIncrements() {
        String increment = "UPDATE " + table + " SET balance = balance + 1";
        return List.of(
                c -> c.createStatement().executeQuery("SELECT * FROM FINAL TABLE (" + increment + ")").close(),
                c -> c.prepareStatement("SELECT id FROM FINAL\u00a0TABLE (" + increment + ")").executeQuery().close(),
                c -> c.createStatement().execute("EXECUTE IMMEDIATE '" + increment + "'"),
                c -> c.createStatement().execute("EXPLAIN ANALYZE " + increment));
    }

    @Override
    List<Path> databasePaths() {
        List<Path> paths = new ArrayList<>(escapedCalls());
        paths.addAll(List.of(
                guarded("a query over FINAL TABLE (UPDATE ...)", c -> c.createStatement().executeQuery(
                        "SELECT * FROM FINAL TABLE (" + update() + ")")),
                guarded("EXPLAIN PLAN FOR an UPDATE", c -> c.createStatement().execute("EXPLAIN PLAN FOR " + update())),
                guarded("an UPDATE hidden behind $$ after a currency-sign identifier", c -> c.createStatement()
                        .execute("SELECT 1 AS \u20ac$$; " + update() + "; SELECT 2 AS b$$")),
                guarded("a no-break space where H2 sees white space", c -> c.createStatement().executeQuery(
                        "SELECT * FROM FINAL\u00a0TABLE (" + update() + ")")),
                guarded("a query over OLD TABLE (DELETE ...)", c -> c.prepareStatement(
                        "SELECT id FROM OLD TABLE (DELETE FROM " + table + ")").executeQuery()),
                guarded("a // comment hiding a quote", c -> c.createStatement().execute(
                        "SELECT 1 // it's\n; " + update() + "; -- '")),
                guarded("MERGE ... KEY upsert", c -> c.createStatement().executeUpdate(
                        "MERGE INTO " + table + " KEY (id) VALUES (1, 0)")),
                guarded("EXECUTE IMMEDIATE", c -> c.createStatement().execute(
                        "EXECUTE IMMEDIATE '" + update() + "'")),
                cannotGuard("RUNSCRIPT", c -> c.createStatement().execute("RUNSCRIPT FROM 'no-such-script.sql'")),
                cannotGuard("a $tag$ that is no dollar quote on H2", c -> c.createStatement().execute(
                        "SELECT $a$; " + update() + "; $a$")),
                protectedPath("a delta table over the epoch table", c -> c.createStatement().executeQuery(
                        "SELECT * FROM OLD TABLE (DELETE FROM fencing_epoch)"))));
        return paths;
    }
}
