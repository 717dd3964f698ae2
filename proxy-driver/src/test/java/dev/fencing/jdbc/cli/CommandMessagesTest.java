package dev.fencing.jdbc.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code fencing} command's usage errors: one line a person can act on, and exit 64 as documented. */
class CommandMessagesTest {
    private static final String URL = "--url=jdbc:fencing:h2:mem:cli_messages";

    private record Result(int code, String out, String err) {
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = FencingCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void theHelpEveryErrorPointsToExists() {
        for (String command : new String[] {"init", "acquire", "renew", "release", "status", "reconcile", "exec"}) {
            Result r = run(command, "--help");
            assertEquals(0, r.code(), command + ": " + r.err());
            assertTrue(r.out().contains("Usage: fencing " + command), r.out());
        }
        assertTrue(run("renew", "--help").out().contains("--ttl=<duration>"));
    }

    @Test
    void aMissingOptionIsNamedWithItsParameterLabel() {
        Result r = run("acquire", URL, "--resource", "r", "--holder", "h");
        assertEquals(Exit.USAGE, r.code());
        assertTrue(r.err().contains("'--ttl=<duration>'"), r.err());
        assertFalse(r.err().contains("<arg"), r.err());
    }

    @Test
    void execWithoutTheDoubleDashExplainsIt() {
        Result r = run("exec", URL, "--resource", "r", "sh", "-c", "true");
        assertEquals(Exit.USAGE, r.code());
        assertTrue(r.err().contains("Unknown option: '-c'"), r.err());
        assertTrue(r.err().contains("put the command after '--'"), r.err());
    }

    @Test
    void aTokenThatIsNotANumberSaysWhatATokenIs() {
        Result r = run("renew", URL, "--resource", "r", "--holder", "h", "--token", "abc", "--ttl", "30s");
        assertEquals(Exit.USAGE, r.code());
        assertTrue(r.err().contains("'abc' is not a token: a token is a positive integer"), r.err());
        assertFalse(r.err().contains("is not a long"), r.err());
    }

    @Test
    void releaseWithANegativeTokenIsAUsageError() {
        for (String token : new String[] {"-1", "0", "+5", "99999999999999999999"}) {
            Result r = run("release", URL, "--resource", "r", "--holder", "h", "--token", token);
            assertEquals(Exit.USAGE, r.code(), token + ": " + r.err());
            assertTrue(r.err().contains("a token is a positive integer"), r.err());
        }
    }

    @Test
    void aDatabaseWithoutTheFencesTablesSaysToRunInit() {
        Result r = run("status", "--url=jdbc:h2:mem:cli_no_tables");
        assertEquals(Exit.DATABASE, r.code());
        assertTrue(r.err().startsWith("fencing: the fence's tables are missing in this database (")
                && r.err().contains("run 'fencing init' with the same --url"), r.err());
        assertFalse(r.err().contains("SQL statement"), r.err());
    }

    @Test
    void initDryRunNeedsTheDatabaseKindAndKnowsMariaDb() {
        Result none = run("init", "--dry-run");
        assertEquals(Exit.USAGE, none.code());
        assertTrue(none.err().contains("give --dialect h2|postgresql|mariadb, or --url"), none.err());
        Result maria = run("init", "--dry-run", "--dialect", "mariadb");
        assertEquals(0, maria.code(), maria.err());
        assertTrue(maria.out().contains("VARBINARY(200)") && maria.out().contains("ENGINE=InnoDB"), maria.out());
    }
}
