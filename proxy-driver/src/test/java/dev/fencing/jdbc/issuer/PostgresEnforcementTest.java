package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.RequiresPostgres;
import dev.fencing.jdbc.TestDatabase;
import dev.fencing.jdbc.cli.FencingCli;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Enforcement by the database ({@code fencing enforce}, issue 28) with clients that never go through the driver:
 * {@code psql} run by {@code fencing exec} (which hands it the token in {@code PGOPTIONS}), and the driver beside
 * it, under both guards. The database is the judge: what the table holds after each refusal.
 */
@RequiresPostgres
class PostgresEnforcementTest {
    @TempDir
    Path dir;
    String raw;
    String schema;
    String epoch;
    String lease;
    String data;
    String resource;

    @BeforeEach
    void createFenceAndTable() throws Exception {
        assumeTrue(onPath("psql"), "psql is not installed");
        raw = TestDatabase.POSTGRESQL.rawUrl();
        schema = TestDatabase.unique("enf");
        epoch = schema + ".epoch";
        lease = schema + ".lease";
        data = schema + ".data";
        resource = TestDatabase.unique("nightly");
        TestDatabase.exec(raw, "CREATE SCHEMA " + schema,
                "CREATE TABLE " + data + " (who TEXT NOT NULL, token BIGINT, seq INT)");
        Result init = cli("init");
        assertEquals(0, init.code, init.err);
        Result enforce = cli("enforce", data, "--resource", resource);
        assertEquals(0, enforce.code, enforce.err);
        assertTrue(enforce.out.contains(data + " is enforced for resource '" + resource + "'"), enforce.out);
    }

    @AfterEach
    void drop() throws SQLException {
        if (schema != null) {
            TestDatabase.dropNamed(raw, schema);
        }
    }

    /**
     * C2, C4, C7: the old job (psql under {@code fencing exec}) is paused past its lease (its {@code exec} stopped with
     * SIGSTOP, so nothing renews and nothing stops psql); a new owner's {@code fencing exec} takes the lease over and
     * writes with psql; the old job's next statement is refused by the database with ZF002 and changes nothing.
     */
    @Test
    void aPausedPsqlJobIsFencedByTheDatabaseAfterANewOwnerWrote_C2_C4() throws Exception {
        Path oldJob = script("old.sql", "INSERT INTO " + data + " VALUES ('old', current_setting('fencing.token')::bigint, 1);",
                "DO $$ BEGIN WHILE NOT EXISTS (SELECT 1 FROM " + data + " WHERE who = 'new') LOOP"
                        + " PERFORM pg_sleep(0.05); END LOOP; END $$;",
                "INSERT INTO " + data + " VALUES ('old', current_setting('fencing.token')::bigint, 2);");
        Path oldLog = dir.resolve("old.log");
        List<String> command = ExecProcessTest.javaCommand(FencingCli.class.getName(), withDb("exec", "--resource",
                resource, "--ttl", "5s", "--", "psql", "-X", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose", "-f",
                oldJob.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(oldLog.toFile());
        psqlEnvironment(builder.environment());
        Process old = builder.start();
        try {
            await(() -> count("who = 'old'") == 1, "the old job wrote with its token", oldLog);
            long oldToken = mark();
            signal("STOP", old.pid()); // paused: no renewal, no SIGTERM to psql

            Path newJob = script("new.sql", "INSERT INTO " + data + " VALUES ('new', current_setting('fencing.token')::bigint, 1);");
            Result takeover = psqlUnderExec("--wait", "30s", newJob);
            assertEquals(0, takeover.code, takeover.out + takeover.err);
            long newToken = mark();
            assertTrue(newToken > oldToken, "the new owner's token reached the resource");

            await(() -> log(oldLog).contains("ZF002"), "the old job's next statement was refused", oldLog);
            assertTrue(log(oldLog).contains("stale token " + oldToken), log(oldLog));
            assertEquals(1, count("who = 'old'"), "nothing of the old job's late statement was written");
            assertEquals(0, count("who = 'old' AND seq = 2"));
            assertEquals(1, count("who = 'new' AND token = " + newToken));
            signal("CONT", old.pid());
            assertTrue(old.waitFor(60, TimeUnit.SECONDS), "the old exec ends");
            assertNotEquals(0, old.exitValue(), log(oldLog));
        } finally {
            signal("CONT", old.pid());
            old.destroyForcibly();
        }
    }

    /**
     * C1, C2, C7: equal tokens write many times; no token, a stale, invalid or never-issued token, or a token for
     * another resource are refused with the fence's SQLStates and change nothing; TRUNCATE needs a current token too.
     */
    @Test
    void psqlWritesOnlyWithACurrentTokenForTheTablesResource_C1_C2_C7() throws Exception {
        Path write = script("write.sql", "INSERT INTO " + data + " VALUES ('job', current_setting('fencing.token')::bigint, 1);",
                "INSERT INTO " + data + " VALUES ('job', current_setting('fencing.token')::bigint, 2);",
                "UPDATE " + data + " SET seq = seq + 10 WHERE who = 'job';");
        Result first = psqlUnderExec(write);
        assertEquals(0, first.code, first.out + first.err);
        long token = mark();
        assertEquals(2, count("who = 'job' AND seq > 10 AND token = " + token), "equal tokens write many times");

        assertRefused(FencingSqlState.INVALID_TOKEN, null, null, "DELETE FROM " + data);
        assertRefused(FencingSqlState.INVALID_TOKEN, resource, "abc", "DELETE FROM " + data);
        assertRefused(FencingSqlState.INVALID_TOKEN, resource, "0", "DELETE FROM " + data);
        assertRefused(FencingSqlState.INVALID_TOKEN, resource, "-3", "DELETE FROM " + data);
        assertRefused(FencingSqlState.INVALID_TOKEN, resource, "99999999999999999999", "DELETE FROM " + data);
        assertRefused(FencingSqlState.INVALID_TOKEN, "other-resource", Long.toString(token), "DELETE FROM " + data);
        assertRefused(FencingSqlState.INVALID_TOKEN, resource.toUpperCase(), Long.toString(token), "DELETE FROM " + data);
        assertRefused(FencingSqlState.TOKEN_NOT_ISSUED, resource, Long.toString(token + 1), "DELETE FROM " + data);
        assertRefused(FencingSqlState.INVALID_TOKEN, null, null, "TRUNCATE " + data);
        assertEquals(2, count("true"), "nothing was changed");
        assertEquals(token, mark(), "a refused token never moved the mark");

        Result second = psqlUnderExec(write); // the next run: a newer token, which advances the mark
        assertEquals(0, second.code, second.out + second.err);
        assertEquals(token + 1, mark());
        assertRefused(FencingSqlState.STALE_TOKEN, resource, Long.toString(token), "TRUNCATE " + data);
        assertRefused(FencingSqlState.STALE_TOKEN, resource, Long.toString(token), "INSERT INTO " + data
                + " VALUES ('late', 0, 0)");
        assertEquals(4, count("true"), "nothing was changed");
        assertEquals(0, psql(resource, Long.toString(token + 1), "TRUNCATE " + data).code, "TRUNCATE with the token");
        assertEquals(0, count("true"));
    }

    /**
     * C4, C11, issue 28 item 3: the driver under both guards and psql write one enforced table of one resource. The
     * driver's writes pass the trigger with nothing more sent (the statement guard's own statement records what it
     * checked; the session fence's registration is probed); after psql's new owner advances the mark, the driver's
     * old connections are refused (the statement guard by its own guard, the registered session ended by the
     * hand-over) and so is psql with the old token; a driver connection whose token is for another resource is
     * refused by the trigger (ZF001).
     */
    @Test
    void theDriverUnderBothGuardsAndPsqlShareOneEnforcedTable_C4_C11() throws Exception {
        Path write = script("write.sql", "INSERT INTO " + data + " VALUES ('psql', current_setting('fencing.token')::bigint, 1);");
        Result first = psqlUnderExec(write);
        assertEquals(0, first.code, first.out + first.err);
        long t1 = mark();
        try (Connection statementGuard = driver(t1, "statement"); Connection sessionGuard = driver(t1, "session")) {
            insert(statementGuard, "statement", t1);                       // prefix guard, auto-commit
            statementGuard.setAutoCommit(false);
            insert(statementGuard, "statement", t1);                       // in a transaction
            try (PreparedStatement batch = statementGuard.prepareStatement("INSERT INTO " + data + " VALUES (?, ?, ?)")) {
                for (int i = 0; i < 3; i++) {                               // a batch: the locking read, no prefix
                    batch.setString(1, "statement-batch");
                    batch.setLong(2, t1);
                    batch.setInt(3, i);
                    batch.addBatch();
                }
                batch.executeBatch();
            }
            statementGuard.commit();
            statementGuard.setAutoCommit(true);
            insert(sessionGuard, "session", t1);                           // registers, then writes untouched
            insert(sessionGuard, "session", t1);
            assertEquals(1, registeredSessions(t1), "the session guard's connection is registered at the mark");
            assertEquals(2 + 3 + 2 + 1, count("token = " + t1));

            Result second = psqlUnderExec(write);                           // a new owner: psql, newer token
            assertEquals(0, second.code, second.out + second.err);
            long t2 = mark();
            assertEquals(t1 + 1, t2);
            long oldRows = count("token = " + t1);

            SQLException statementRefused = assertThrows(SQLException.class, () -> insert(statementGuard, "late", t1));
            assertEquals(FencingSqlState.STALE_TOKEN, statementRefused.getSQLState(), statementRefused.getMessage());
            assertThrows(SQLException.class, () -> insert(sessionGuard, "late", t1),
                    "the hand-over ended the session registered at the old token");
            assertRefused(FencingSqlState.STALE_TOKEN, resource, Long.toString(t1), "INSERT INTO " + data
                    + " VALUES ('late', 0, 0)");
            assertEquals(oldRows, count("token = " + t1), "nothing of the old token after the new owner wrote");
            assertEquals(0, count("who = 'late'"));

            try (Connection newStatement = driver(t2, "statement"); Connection newSession = driver(t2, "session")) {
                insert(newStatement, "statement", t2);
                insert(newSession, "session", t2);
            }
            assertEquals(3, count("token = " + t2));
        }
        try (Connection otherResource = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + epoch,
                "fencing.lease.table=" + lease, "fencing.resource=" + resource + "-other"))) {
            otherResource.unwrap(dev.fencing.jdbc.FencedConnection.class).setFencingToken(1);
            SQLException refused = assertThrows(SQLException.class, () -> insert(otherResource, "other", 1));
            assertEquals(FencingSqlState.INVALID_TOKEN, refused.getSQLState(), "the table belongs to " + resource
                    + ", whatever resource the connection names (C11): " + refused.getMessage());
        }
        assertEquals(0, count("who = 'other'"));
    }

    /**
     * C11: one statement (here a batch) writing enforced tables of two resources, both mapped, through the statement
     * guard: the driver locks both resources' rows, and each table's trigger must find its own resource's token.
     */
    @Test
    void aDriverBatchSpanningTwoEnforcedResourcesPassesBothTriggers_C11() throws Exception {
        String billing = TestDatabase.unique("billing");
        String invoices = schema + ".invoices";
        TestDatabase.exec(raw, "CREATE TABLE " + invoices + " (n INT)");
        assertEquals(0, cli("enforce", invoices, "--resource", billing).code);
        assertEquals(0, cli("map", invoices, "--resource", billing).code);
        assertEquals(0, cli("map", data, "--resource", resource).code);
        try (Connection c = driver(1, "statement");
             dev.fencing.jdbc.Fencing.Scope ignored = dev.fencing.jdbc.Fencing.scope(resource, 1).with(billing, 1);
             Statement s = c.createStatement()) {
            s.addBatch("INSERT INTO " + data + " VALUES ('batch', 1, 1)");
            s.addBatch("INSERT INTO " + invoices + " VALUES (1)");
            s.executeBatch();
        }
        assertEquals(1, count("who = 'batch'"));
    }

    /**
     * C4 with real threads: four clients outside the driver (plain pgjdbc connections that set fencing.resource and
     * fencing.token, as psql does) and two connections of the driver write at the current token in transactions of
     * two statements with a pause after each, while a new owner advances the mark through the trigger. Once the new
     * owner's advance holds the epoch row, no write with the old token commits: the count of old rows its own
     * transaction reads is final, and every old writer ends with ZF002. (With the trigger's lock taken out, the
     * count grew afterwards: 102 then 106.)
     */
    @Test
    void oldWritersOutsideAndInsideTheDriverNeverCommitAfterTheNewOwner_C4() throws Exception {
        try (TokenIssuer issuer = issuer()) {
            long t1 = issuer.acquire(resource, "old-owner", Duration.ofSeconds(60)).token();
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(6);
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            List<java.util.concurrent.Future<String>> writers = new ArrayList<>();
            try {
                for (int w = 0; w < 6; w++) {
                    boolean throughDriver = w >= 4;
                    String who = (throughDriver ? "driver-" : "client-") + w;
                    writers.add(pool.submit(() -> writeUntilRefused(who, throughDriver, t1, stop)));
                }
                await(() -> count("token = " + t1) >= 30, "the old writers write", dir.resolve("none"));
                long t2 = issuer.acquire(resource, "new-owner", Duration.ofSeconds(60),
                        AcquireOptions.DEFAULT.takeOver(true)).token();
                long oldRowsAfter;
                try (Connection newOwner = client(t2)) {
                    newOwner.setAutoCommit(false);
                    try (Statement s = newOwner.createStatement()) {
                        s.executeUpdate("INSERT INTO " + data + " VALUES ('new', " + t2 + ", 0)");
                        // the advance holds the epoch row: every old-token transaction has ended (or will fail)
                        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + data + " WHERE token = " + t1)) {
                            rs.next();
                            oldRowsAfter = rs.getLong(1);
                        }
                    }
                    newOwner.commit();
                }
                for (java.util.concurrent.Future<String> writer : writers) {
                    assertEquals(FencingSqlState.STALE_TOKEN, writer.get(60, TimeUnit.SECONDS),
                            "every old writer ends refused as stale");
                }
                assertEquals(oldRowsAfter, count("token = " + t1), "no old-token write committed after the new owner's");
                assertEquals(t2, mark());
            } finally {
                stop.set(true);
                pool.shutdownNow();
                assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
            }
        }
    }

    /**
     * Issue 28 item 4: an application role with nothing but DML on the table is fenced without any privilege on the
     * fence's tables (the trigger's function runs as its owner), and cannot lift the enforcement: no disabling the
     * trigger, no {@code session_replication_role}, no raising a mark by hand. {@code enforce --list} names the role
     * that owns an enforced table, and not the application role.
     */
    @Test
    void anApplicationRoleWithOnlyDmlIsFencedAndCannotLiftEnforcement() throws Exception {
        String app = TestDatabase.unique("enf_app");
        String owner = TestDatabase.unique("enf_owner");
        String owned = schema + ".owned";
        TestDatabase.exec(raw, "CREATE ROLE " + app + " LOGIN", "CREATE ROLE " + owner + " LOGIN");
        try {
            TestDatabase.exec(raw, "GRANT USAGE ON SCHEMA " + schema + " TO " + app + ", " + owner,
                    "GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON " + data + " TO " + app,
                    "CREATE TABLE " + owned + " (who TEXT)", "ALTER TABLE " + owned + " OWNER TO " + owner);
            assertEquals(0, cli("enforce", owned, "--resource", resource).code);
            Result token = cli("acquire", "--resource", resource, "--holder", "job", "--ttl", "60s");
            assertEquals(0, token.code, token.err);
            String t = token.out.strip();

            Result writes = psqlAs(app, resource, t, "INSERT INTO " + data + " VALUES ('app', " + t + ", 1)");
            assertEquals(0, writes.code, "no privilege on the fence's tables is needed: " + writes.err);
            assertEquals(Long.parseLong(t), mark(), "the trigger advanced the mark for the role");
            for (String lift : new String[] {"ALTER TABLE " + data + " DISABLE TRIGGER fencing_enforce",
                "DROP TRIGGER fencing_enforce ON " + data, "SET session_replication_role = replica",
                "UPDATE " + epoch + " SET epoch = epoch + 100", "INSERT INTO " + lease + " VALUES ('x', 5)",
                "DELETE FROM " + epoch + "_session"}) {
                Result refused = psqlAs(app, resource, t, lift);
                assertTrue(refused.code != 0 && refused.err.contains("42501"), lift + ": " + refused.err);
            }
            assertRefused(FencingSqlState.INVALID_TOKEN, app, null, null, "DELETE FROM " + data);
            assertEquals(Long.parseLong(t), mark());

            Result list = cli("enforce", "--list");
            assertEquals(0, list.code, list.err);
            assertTrue(list.out.contains(data) && list.out.contains(owned) && list.out.contains("enforced"), list.out);
            assertTrue(list.out.contains("role " + owner + ": owns the table"), list.out);
            assertTrue(!list.out.contains("role " + app + ":"), "DML alone cannot lift the enforcement: " + list.out);

            TestDatabase.exec(raw, "ALTER TABLE " + data + " DISABLE TRIGGER fencing_enforce");
            assertTrue(cli("enforce", "--list").out.contains("NOT IN FORCE"), "a disabled trigger is reported");
            assertEquals(0, cli("enforce", data, "--resource", resource).code);
            assertTrue(!cli("enforce", "--list").out.contains("NOT IN FORCE"), "enforce again puts it back in force");
            Result moved = cli("enforce", data, "--resource", resource + "-other");
            assertEquals(64, moved.code, "a table enforced for one resource is not moved silently: " + moved.err);
            Result off = cli("enforce", "--off", owned);
            assertEquals(0, off.code, off.err);
            assertTrue(!cli("enforce", "--list").out.contains(owned), "--off took it out");
        } finally {
            TestDatabase.exec(raw, "DROP OWNED BY " + app + ", " + owner + " CASCADE", "DROP ROLE " + app,
                    "DROP ROLE " + owner);
        }
    }

    private Result psqlAs(String role, String resourceSetting, String token, String sql) throws Exception {
        return psql(role, resourceSetting, token, sql);
    }

    /** Writes transactions of two rows at {@code token} until refused; returns the refusal's SQLState. */
    private String writeUntilRefused(String who, boolean throughDriver, long token,
                                     java.util.concurrent.atomic.AtomicBoolean stop) throws Exception {
        try (Connection c = throughDriver ? driver(token, "statement") : client(token)) {
            c.setAutoCommit(false);
            for (int n = 0; !stop.get(); n++) {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + data + " VALUES (?, ?, ?)")) {
                    ps.setString(1, who);
                    ps.setLong(2, token);
                    ps.setInt(3, n);
                    ps.executeUpdate();
                    Thread.sleep(3);
                    ps.setInt(3, -n);
                    ps.executeUpdate();
                    Thread.sleep(3); // checked, not yet committed: an epoch change must wait for this transaction
                    c.commit();
                } catch (SQLException refused) {
                    c.rollback();
                    return refused.getSQLState();
                }
            }
        }
        return "stopped";
    }

    /** A connection outside the driver with the token set as psql's PGOPTIONS would set it. */
    private Connection client(long token) throws SQLException {
        Connection c = DriverManager.getConnection(raw);
        try (Statement s = c.createStatement()) {
            s.execute("SET fencing.resource = '" + resource + "'");
            s.execute("SET fencing.token = " + token);
        }
        return c;
    }

    private Connection driver(long token, String guard) throws SQLException {
        Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + epoch,
                "fencing.lease.table=" + lease, "fencing.resource=" + resource, "fencing.guard=" + guard));
        c.unwrap(dev.fencing.jdbc.FencedConnection.class).setFencingToken(token);
        return c;
    }

    private void insert(Connection c, String who, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + data + " VALUES (?, ?, 1)")) {
            ps.setString(1, who);
            ps.setLong(2, token);
            ps.executeUpdate();
        }
    }

    private long registeredSessions(long token) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw);
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + epoch + "_session WHERE resource = ?"
                     + " AND pid <> 0 AND token = ?")) {
            ps.setString(1, resource);
            ps.setLong(2, token);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private TokenIssuer issuer() throws SQLException {
        java.util.Properties info = new java.util.Properties();
        info.setProperty("fencing.table", epoch);
        info.setProperty("fencing.lease.table", lease);
        return TokenIssuer.forUrl(raw, info);
    }

    /** Runs {@code sql} through psql with the given settings in PGOPTIONS and checks it was refused with {@code state}. */
    private void assertRefused(String state, String resourceSetting, String token, String sql) throws Exception {
        assertRefused(state, null, resourceSetting, token, sql);
    }

    private void assertRefused(String state, String role, String resourceSetting, String token, String sql)
            throws Exception {
        Result refused = psql(role, resourceSetting, token, sql);
        assertNotEquals(0, refused.code, "psql fails on the refusal: " + refused.out + refused.err);
        assertTrue(refused.err.contains("ERROR:  " + state + ": fencing: "), sql + " with token " + token + ": "
                + refused.err);
    }

    private Result psql(String resourceSetting, String token, String sql) throws Exception {
        return psql(null, resourceSetting, token, sql);
    }

    private Result psql(String role, String resourceSetting, String token, String sql) throws Exception {
        List<String> command = List.of("psql", "-X", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose", "-c", sql);
        ProcessBuilder builder = new ProcessBuilder(command);
        psqlEnvironment(builder.environment());
        if (role != null) {
            builder.environment().put("PGUSER", role);
        }
        String options = (resourceSetting == null ? "" : "-c fencing.resource=" + resourceSetting)
                + (token == null ? "" : " -c fencing.token=" + token);
        builder.environment().put("PGOPTIONS", options.strip());
        return run(builder);
    }

    /** {@code fencing exec} in this JVM running psql on {@code script}, as a cron job would. */
    private Result psqlUnderExec(Object... argsThenScript) throws Exception {
        List<String> args = new ArrayList<>(List.of("exec", "--resource", resource, "--ttl", "10s"));
        for (int i = 0; i < argsThenScript.length - 1; i++) {
            args.add(argsThenScript[i].toString());
        }
        args.addAll(List.of("--", "sh", "-c", "psql -X -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -f \"$0\" >\"$0.out\" 2>&1",
                argsThenScript[argsThenScript.length - 1].toString()));
        Result result = cliWithPsqlEnvironment(args);
        Path out = Path.of(argsThenScript[argsThenScript.length - 1] + ".out");
        return new Result(result.code, Files.exists(out) ? Files.readString(out) : "", result.err);
    }

    private Result cliWithPsqlEnvironment(List<String> args) throws Exception {
        // exec's children inherit this JVM's environment: psql finds the server through the PG* variables, which
        // this JVM cannot set for itself, so exec runs as a process of its own here
        ProcessBuilder builder = new ProcessBuilder(ExecProcessTest.javaCommand(FencingCli.class.getName(),
                withDb(args.toArray(new String[0]))));
        psqlEnvironment(builder.environment());
        return run(builder);
    }

    private static Result run(ProcessBuilder builder) throws Exception {
        Path out = Files.createTempFile("fencing-psql", ".out");
        Path err = Files.createTempFile("fencing-psql", ".err");
        try {
            Process p = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            assertTrue(p.waitFor(90, TimeUnit.SECONDS), "finished in time: " + builder.command());
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Where psql connects: the test server's host, port, database and user, from its JDBC URL. */
    private static void psqlEnvironment(Map<String, String> env) {
        URI uri = URI.create(TestDatabase.pgUrl().substring("jdbc:".length()));
        env.put("PGHOST", uri.getHost());
        env.put("PGPORT", Integer.toString(uri.getPort() < 0 ? 5432 : uri.getPort()));
        env.put("PGDATABASE", uri.getPath().substring(1));
        String query = uri.getQuery() == null ? "" : uri.getQuery();
        for (String pair : query.split("&")) {
            if (pair.startsWith("user=")) {
                env.put("PGUSER", pair.substring(5));
            } else if (pair.startsWith("password=")) {
                env.put("PGPASSWORD", pair.substring(9));
            }
        }
        env.remove("PGOPTIONS");
    }

    private String[] withDb(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        int at = all.indexOf("--");
        List<String> db = List.of("--url", raw, "--epoch-table", epoch, "--lease-table", lease);
        all.addAll(at < 0 ? all.size() : at, db);
        return all.toArray(new String[0]);
    }

    private Result cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = FencingCli.run(new PrintWriter(out, true), new PrintWriter(err, true), withDb(args));
        return new Result(code, out.toString(), err.toString());
    }

    private Path script(String name, String... statements) throws IOException {
        Path file = dir.resolve(name);
        Files.write(file, List.of(statements));
        return file;
    }

    long mark() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw);
             PreparedStatement ps = c.prepareStatement("SELECT epoch FROM " + epoch + " WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    long count(String where) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + data + " WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String log(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }

    interface Check {
        boolean holds() throws Exception;
    }

    private static void await(Check check, String what, Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!check.holds()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what + ": " + log(log));
            Thread.sleep(50);
        }
    }

    private static void signal(String signal, long pid) throws Exception {
        new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor(10, TimeUnit.SECONDS);
    }

    private static boolean onPath(String program) {
        try {
            return new ProcessBuilder("sh", "-c", "command -v " + program).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    record Result(int code, String out, String err) {
    }
}
