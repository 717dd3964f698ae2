package dev.fencing.jdbc.cli;

import dev.fencing.jdbc.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code fencing sql}, the way a shell job writes through the fence: a script cut where the fence's lexer cuts it,
 * run with the given token; a missing or stale token refused with the documented exit code and nothing changed;
 * {@code -1} all or nothing. The database is the judge.
 */
class SqlCommandTest {
    private record Result(int code, String out, String err) {
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"H2", "POSTGRESQL", "MARIADB"})
    void aShellJobWritesWithItsTokenAndAStaleOrMissingTokenChangesNothing(TestDatabase database) throws Exception {
        String raw = database.rawUrl();
        String epoch = TestDatabase.unique("cli_epoch");
        String lease = TestDatabase.unique("cli_lease");
        String table = TestDatabase.unique("cli_data");
        String resource = TestDatabase.unique("cli_res");
        List<String> db = List.of("--url", raw, "--epoch-table", epoch);
        try {
            Result init = run(concat(List.of("init", "--lease-table", lease), db));
            assertEquals(0, init.code(), init.err());
            Result declared = run(concat(List.of("declare", "--lease-table", lease, resource), db));
            assertEquals(0, declared.code(), declared.err());

            Path script = Files.createTempFile("fencing-sql", ".sql");
            Files.writeString(script, "-- the job\nCREATE TABLE " + table + " (id INT PRIMARY KEY, v INT NOT NULL,"
                    + " note VARCHAR(20));\n\nINSERT INTO " + table + " VALUES (1, 10, 'a;b'), (2, 20, NULL);\n"
                    + "SELECT id, v, note FROM " + table + " ORDER BY id;\n");
            Result job = run(concat(List.of("sql", "--resource", resource, "--token", "3", "-f", script.toString()), db));
            assertEquals(0, job.code(), job.err());
            assertEquals(List.of("id\tv\tnote", "1\t10\ta;b", "2\t20\t"), lower(job.out()));
            Files.delete(script);

            Result none = run(concat(List.of("sql", "--resource", resource, "-c", "UPDATE " + table + " SET v = 0"), db));
            assertEquals(Exit.USAGE, none.code(), none.err());
            assertTrue(none.err().contains("statement 1 of 1 (line 1) failed") && none.err().contains("ZF001")
                    && none.err().contains("fencing exec"), none.err());

            Result stale = run(concat(List.of("sql", "--resource", resource, "--token", "2", "-c",
                    "SELECT 1", "-c", "UPDATE " + table + " SET v = 0"), db));
            assertEquals(Exit.LOST, stale.code(), stale.err());
            assertTrue(stale.err().contains("statement 2 of 2 (line 1) failed") && stale.err().contains("ZF002")
                    && stale.err().contains("The lease was lost"), stale.err());
            assertEquals(30, sum(raw, table));

            Result allOrNothing = run(concat(List.of("sql", "--resource", resource, "--token", "3", "-1", "-c",
                    "UPDATE " + table + " SET v = 99 WHERE id = 1; INSERT INTO " + table + " VALUES (2, 0, 'dup')"), db));
            assertEquals(Exit.DATABASE, allOrNothing.code(), allOrNothing.err());
            assertTrue(allOrNothing.err().contains("were rolled back"), allOrNothing.err());
            assertEquals(30, sum(raw, table));

            Result oneByOne = run(concat(List.of("sql", "--resource", resource, "--token", "3", "-c",
                    "UPDATE " + table + " SET v = 99 WHERE id = 1; INSERT INTO " + table + " VALUES (2, 0, 'dup')"), db));
            assertEquals(Exit.DATABASE, oneByOne.code(), oneByOne.err());
            assertTrue(oneByOne.err().contains("statement 2 of 2") && oneByOne.err().contains("stay committed"),
                    oneByOne.err());
            assertEquals(119, sum(raw, table));
        } finally {
            TestDatabase.exec(raw, "DROP TABLE IF EXISTS " + table, "DROP TABLE IF EXISTS " + epoch,
                    "DROP TABLE IF EXISTS " + lease);
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"H2"})
    void withoutStatementsOrWithAnUnreadableFileItSaysSo(TestDatabase database) {
        String raw = database.rawUrl();
        Result empty = run("sql", "--url", raw, "-c", "-- nothing");
        assertEquals(Exit.USAGE, empty.code());
        assertEquals("fencing: no SQL statement to run", empty.err().strip());
        Result missing = run("sql", "--url", raw, "-f", "/nonexistent/job.sql");
        assertEquals(Exit.USAGE, missing.code());
        assertTrue(missing.err().startsWith("fencing: cannot read /nonexistent/job.sql"), missing.err());
        Result both = run("sql", "--url", raw);
        assertEquals(Exit.USAGE, both.code());
        assertTrue(both.err().contains("-c=SQL") && both.err().contains("-f=FILE"), both.err());
    }

    /** The output's lines, the header lower-cased (H2 upper-cases column labels, the others keep them). */
    private static List<String> lower(String out) {
        List<String> lines = new ArrayList<>(List.of(out.replace("\r", "").split("\n")));
        lines.set(0, lines.get(0).toLowerCase(java.util.Locale.ROOT));
        return lines;
    }

    private static long sum(String raw, String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT sum(v) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String[] concat(List<String> first, List<String> second) {
        List<String> all = new ArrayList<>(first);
        all.addAll(second);
        return all.toArray(new String[0]);
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = FencingCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Result(code, out.toString(), err.toString());
    }
}
