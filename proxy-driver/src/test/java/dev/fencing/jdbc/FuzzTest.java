package dev.fencing.jdbc;

import dev.fencing.jdbc.audit.Refusals;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * SPEC C5, C8 and C9 under fuzzing: mutated real statements (see {@link StatementMutator}) run through a fenced
 * connection that has no token or a stale one (chosen at random per statement), against a database holding known
 * data and a statement-level trigger that logs every INSERT, UPDATE and DELETE on the table, through a random JDBC
 * entry point each. The database judges after every statement (the table's checksum, the trigger's log, its
 * columns, the schema's objects and the epoch row): zero unguarded changes, every failure an
 * {@code SQLException}, none slower than {@link #TIMEOUT_SECONDS}.
 *
 * <p>Budget: {@code -Dfencing.fuzz.statements=N} on H2 (default {@value #DEFAULT_H2_STATEMENTS}) and
 * {@code -Dfencing.fuzz.pg.statements=N} on PostgreSQL (default {@value #DEFAULT_PG_STATEMENTS}; 0 skips it),
 * {@code -Dfencing.fuzz.mariadb.statements=N} on MariaDB (default {@value #DEFAULT_MARIADB_STATEMENTS}; 0 skips it;
 * MariaDB has no statement-level triggers, so row-level ones log there, and {@link MariaDbFuzzJudge} judges, cheap
 * enough per statement for long runs);
 * {@code -Dfencing.fuzz.seed=S} changes the texts. Each run prints its figures on one {@code fuzz} line.
 */
class FuzzTest {
    static final int DEFAULT_H2_STATEMENTS = 3000;
    static final int DEFAULT_PG_STATEMENTS = 300;
    static final int DEFAULT_MARIADB_STATEMENTS = 300;
    static final int TIMEOUT_SECONDS = 10;
    /** A long run says how far it got this often. */
    static final int PROGRESS_EVERY = 10_000;
    private static final long HIGH_WATER_MARK = 5;
    /** A MariaDB table no fuzzed text names (see {@link #endTransaction}). */
    private static final String PROBE = "fzprobe";

    private final ExecutorService worker = Executors.newSingleThreadExecutor();
    private final List<String> cleanup = new ArrayList<>();
    private String raw;
    private String cleanupUrl;
    private String schema;
    private String judgeFigures;
    private Connection[] attackers = {};

    @AfterEach
    void tearDown() throws SQLException {
        worker.shutdownNow();
        for (Connection c : attackers) {
            c.close();
        }
        if (cleanupUrl != null && !cleanup.isEmpty()) {
            TestDatabase.exec(cleanupUrl, cleanup.toArray(new String[0]));
        }
    }

    @Test
    void fuzzedStatementsWithoutATokenNeverChangeH2_C5() throws Exception {
        fuzz(TestDatabase.H2, Integer.getInteger("fencing.fuzz.statements", DEFAULT_H2_STATEMENTS));
    }

    @Test
    void fuzzedStatementsWithoutATokenNeverChangePostgresql_C5() throws Exception {
        int statements = Integer.getInteger("fencing.fuzz.pg.statements", DEFAULT_PG_STATEMENTS);
        Assumptions.assumeTrue(statements > 0, "PostgreSQL fuzzing turned off by fencing.fuzz.pg.statements=0");
        fuzz(TestDatabase.POSTGRESQL, statements);
    }

    @Test
    @RequiresMariaDb
    void fuzzedStatementsWithoutATokenNeverChangeMariaDb_C5() throws Exception {
        int statements = Integer.getInteger("fencing.fuzz.mariadb.statements", DEFAULT_MARIADB_STATEMENTS);
        Assumptions.assumeTrue(statements > 0, "MariaDB fuzzing turned off by fencing.fuzz.mariadb.statements=0");
        fuzz(TestDatabase.MARIADB, statements);
    }

    @Test
    void fuzzedStatementsWithAStaleOrNoTokenForTheMappedResourceNeverChangeH2_C11() throws Exception {
        fuzz(TestDatabase.H2, Integer.getInteger("fencing.fuzz.statements", DEFAULT_H2_STATEMENTS) / 3, null, true);
    }

    @Test
    void fuzzedStatementsWithAStaleOrNoTokenForTheMappedResourceNeverChangePostgresql_C11() throws Exception {
        int statements = Integer.getInteger("fencing.fuzz.pg.statements", DEFAULT_PG_STATEMENTS) / 2;
        Assumptions.assumeTrue(statements > 0, "PostgreSQL fuzzing turned off by fencing.fuzz.pg.statements=0");
        fuzz(TestDatabase.POSTGRESQL, statements, null, true);
    }

    @Test
    @RequiresMariaDb
    void fuzzedStatementsWithAStaleOrNoTokenForTheMappedResourceNeverChangeMariaDb_C11() throws Exception {
        int statements = Integer.getInteger("fencing.fuzz.mariadb.statements", DEFAULT_MARIADB_STATEMENTS) / 2;
        Assumptions.assumeTrue(statements > 0, "MariaDB fuzzing turned off by fencing.fuzz.mariadb.statements=0");
        fuzz(TestDatabase.MARIADB, statements, null, true);
    }

    /**
     * The MariaDB judge is cheap, not blind: a change made behind the fence's back (a raw connection, standing for a
     * write the fence let through) fails the run at the statement after which it was made, whether it changed
     * rows, the epoch table or a schema object.
     */
    @ParameterizedTest
    @RequiresMariaDb
    @ValueSource(strings = {
            "UPDATE fztable SET balance = balance WHERE id = 1",
            "INSERT INTO fzepoch (resource, epoch) VALUES ('fzplanted', 1)",
            "CREATE TABLE fzplanted (n INT)",
            "ALTER TABLE fztable ADD INDEX fzplanted_i (balance)",
            "ALTER TABLE fztable_log MODIFY n BIGINT",
            "CREATE VIEW fzplanted_v AS SELECT 1 AS n",
            "CREATE PROCEDURE fzplanted_p() SELECT 1",
            "CREATE TRIGGER fzplanted_t BEFORE DELETE ON fztable_log FOR EACH ROW SET @fz = 1",
            "CREATE EVENT fzplanted_e ON SCHEDULE AT CURRENT_TIMESTAMP + INTERVAL 1 DAY DO SET @fz = 1",
            "DROP PROCEDURE fzproc"})
    void theMariaDbJudgeCatchesAChangeMadeBehindTheFence_C5(String plant) {
        int plantedAfter = 20;
        AssertionError e = assertThrows(AssertionError.class, () -> fuzz(TestDatabase.MARIADB, 30,
                new Plant(plantedAfter, plant), false));
        assertTrue(e.getMessage().startsWith("unguarded change (seed ") && e.getMessage().contains(", statement "
                + plantedAfter + ","), e.getMessage());
    }

    private void fuzz(TestDatabase database, int statements) throws Exception {
        fuzz(database, statements, null, false);
    }

    /** A change made behind the fence's back through a raw connection after statement {@code after}. */
    record Plant(int after, String sql) {
    }

    /**
     * {@code mapped}: the run's tables are mapped to the run's resource (SPEC C11) and both attackers name another
     * resource, for which they hold the current token; the attacker's token for the tables' resource is none or stale
     * ({@code SET fencing.token.<resource>}).
     */
    private void fuzz(TestDatabase database, int statements, Plant plant, boolean mapped) throws Exception {
        long seed = Long.getLong("fencing.fuzz.seed", 20261129L);
        // Fixed names, so a seed always yields the same texts: H2's database is private to this run, and on
        // PostgreSQL the run gets a schema of its own (with its own epoch table).
        String table = "fztable";
        String resource = "fzres";
        String procedure = "fzproc";
        raw = database.rawUrl();
        cleanupUrl = raw;
        if (database == TestDatabase.POSTGRESQL) {
            schema = TestDatabase.unique("fz");
            TestDatabase.exec(raw, "CREATE SCHEMA " + schema);
            cleanup.add("DROP SCHEMA " + schema + " CASCADE");
            raw = raw + "&currentSchema=" + schema;
        }
        if (database == TestDatabase.MARIADB) {
            // The run's own tables in the test database (fixed names: a seed always yields the same texts).
            String[] drops = {"DROP PROCEDURE IF EXISTS " + procedure, "DROP FUNCTION IF EXISTS " + table + "_fn",
                    "DROP TABLE IF EXISTS " + table, "DROP TABLE IF EXISTS " + table + "_log",
                    "DROP TABLE IF EXISTS " + table + "_f", "DROP TABLE IF EXISTS " + table + "_r",
                    "DROP TABLE IF EXISTS " + PROBE, "DROP TABLE IF EXISTS fzplanted", "DROP VIEW IF EXISTS fzplanted_v",
                    "DROP PROCEDURE IF EXISTS fzplanted_p", "DROP EVENT IF EXISTS fzplanted_e",
                    "DROP TABLE IF EXISTS fzepoch", "DROP TABLE IF EXISTS fzepoch_resource",
                    "DROP TABLE IF EXISTS fzepoch_lease", "DROP TABLE IF EXISTS fzscratch",
                    "DROP FUNCTION IF EXISTS `1fzfn`",
                    "DROP FUNCTION IF EXISTS `\u20acfzfn`", "DROP FUNCTION IF EXISTS `a\u20acfzfn`",
                    "DROP FUNCTION IF EXISTS `a\u00a0fzfn`"};
            TestDatabase.exec(raw, drops);
            cleanup.addAll(List.of(drops));
        }
        createData(database, table, procedure);
        // On MariaDB the run has an epoch table of its own: the server's other tests share the database's default one.
        String epochTable = database == TestDatabase.MARIADB ? "fzepoch" : "fencing_epoch";
        List<String> fencing = new ArrayList<>(List.of("fencing.resource=" + resource, "fencing.table=" + epochTable));
        String own = "fzown";
        if (mapped) {
            TestDatabase.exec(raw, "CREATE TABLE fzscratch (n INT)");
            String leaseTable = epochTable + "_lease";
            TestDatabase.cli(0, raw, epochTable, leaseTable, "init");
            TestDatabase.cli(0, raw, epochTable, leaseTable, "map", table, table + "_log", "--resource", resource);
            TestDatabase.cli(0, raw, epochTable, leaseTable, "declare", own);
            fencing.add("fencing.lease.table=" + leaseTable);
        }
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, with(fencing, "fencing.schema=create",
                "fencing.token=" + HIGH_WATER_MARK))); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET balance = balance WHERE id = 1");
        }
        if (mapped) {
            // the attackers' own resource, at the mark their token names, before the judge's first look
            fencing.set(0, "fencing.resource=" + own);
            fencing.add("fencing.token=" + HIGH_WATER_MARK);
            try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, with(fencing)));
                 Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO fzscratch VALUES (1)");
            }
        }
        List<String> corpus = corpus(database, table, procedure, resource, epochTable);
        StatementMutator mutator = new StatementMutator(seed, corpus, table);
        SplittableRandom entryPoints = new SplittableRandom(seed + 1);
        Set<Long> distinct = new HashSet<>();
        Map<String, Integer> outcomes = new TreeMap<>();
        long started = System.nanoTime();
        long judgeNanos = 0;
        try (Judge judge = database == TestDatabase.MARIADB
                ? new MariaDbFuzzJudge(raw, table, table + "_log", epochTable)
                : new QueryJudge(raw, checksumQuery(database, table, resource, schema))) {
            // One attacker without a token, one with a stale token.
            String[][] settings = mapped
                    ? new String[][] {with(fencing), with(fencing, "SET fencing.token." + resource + " = "
                            + (HIGH_WATER_MARK - 2))}
                    : new String[][] {with(fencing), with(fencing, "fencing.token=" + (HIGH_WATER_MARK - 2))};
            attackers = new Connection[] {attacker(settings[0]), attacker(settings[1])};
            String expected = judge.readAll();
            java.util.ArrayDeque<String> recent = new java.util.ArrayDeque<>();
            for (int i = 0; i < statements; i++) {
                String sql = mutator.next();
                distinct.add(hash(sql));
                int entry = entryPoints.nextInt(8);
                int attacker = entryPoints.nextBoolean() ? 1 : 0;
                Connection c = attackers[attacker];
                Future<?> run = worker.submit(() -> {
                    entryPoint(c, sql, entry);
                    return null;
                });
                String outcome;
                try {
                    run.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    outcome = "passed";
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof SQLException)) {
                        throw new AssertionError("not an SQLException (seed " + seed + ", statement " + i + ", entry "
                                + entry + "): " + sql, e.getCause());
                    }
                    outcome = outcome((SQLException) e.getCause());
                } catch (TimeoutException e) {
                    throw new AssertionError("no answer in " + TIMEOUT_SECONDS + " s (seed " + seed + ", statement "
                            + i + "): " + sql);
                }
                outcomes.merge(outcome, 1, Integer::sum);
                recent.addLast(i + " entry " + entry + (attacker == 1 ? " stale " : " no token ") + outcome + ": "
                        + sql);
                if (recent.size() > 12) {
                    recent.removeFirst();
                }
                attackers[attacker] = endTransaction(attackers[attacker], sql, settings[attacker]);
                if (plant != null && plant.after() == i) {
                    TestDatabase.exec(raw, plant.sql());
                }
                long judging = System.nanoTime();
                String now = i == statements - 1 ? judge.readAll() : judge.read();
                judgeNanos += System.nanoTime() - judging;
                if ((i + 1) % PROGRESS_EVERY == 0) {
                    System.out.printf(Locale.ROOT, "fuzz %s: %d of %d statements, %.1f s, judge %.1f s%n", database,
                            i + 1, statements, (System.nanoTime() - started) / 1e9, judgeNanos / 1e9);
                }
                if (!expected.equals(now)) {
                    fail("unguarded change (seed " + seed + ", statement " + i + ", entry " + entry + ", " + outcome
                            + "): " + sql + "\nbefore: " + expected + "\nafter:  " + now + "\nrecent statements:\n"
                            + String.join("\n", recent));
                }
            }
            judgeFigures = String.format(Locale.ROOT, "judge %.1f s, %s", judgeNanos / 1e9, judge.figures());
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf(Locale.ROOT, "fuzz %s: seed %d, %d statements, %d distinct texts, outcomes %s,"
                + " unguarded changes 0, %.1f s, %s%n", database, seed, statements, distinct.size(), outcomes, seconds,
                judgeFigures);
        assertEquals(statements, outcomes.values().stream().mapToInt(Integer::intValue).sum());
    }

    private static String[] with(List<String> settings, String... more) {
        List<String> all = new ArrayList<>(settings);
        all.addAll(List.of(more));
        return all.toArray(new String[0]);
    }

    /**
     * A fenced connection for fuzzed texts ({@code settings}: the URL's, and {@code SET ...} texts run after it opens).
     * On MariaDB a lock wait ends in 5 s (the server's default is a year): a
     * text that waits for a lock the other connection holds fails instead of hanging the run.
     */
    private Connection attacker(String... settings) throws SQLException {
        List<String> url = new ArrayList<>();
        List<String> afterConnect = new ArrayList<>();
        for (String setting : settings) {
            (setting.startsWith("SET ") ? afterConnect : url).add(setting);
        }
        Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, url.toArray(new String[0])));
        for (String sql : afterConnect) {
            try (Statement s = c.createStatement()) {
                s.execute(sql);
            }
        }
        if (raw.startsWith("jdbc:mariadb:")) {
            try (Statement s = c.createStatement()) {
                s.execute("SET SESSION lock_wait_timeout = 5, innodb_lock_wait_timeout = 5");
            }
        }
        return c;
    }

    /**
     * Ends whatever transaction a fuzzed text opened; a broken connection is replaced. On MariaDB, what outlives a
     * {@code ROLLBACK} is ended too: an open {@code HANDLER} (it holds the table's metadata lock), and
     * {@code LOCK TABLES} (it would block the judge; the fence refuses {@code UNLOCK TABLES}, so the connection is
     * replaced when a table the corpus never names cannot be read). A text that takes either names it.
     */
    private Connection endTransaction(Connection fenced, String sql, String... settings) throws SQLException {
        try (Statement s = fenced.createStatement()) {
            s.execute("ROLLBACK");
            if (raw.startsWith("jdbc:mariadb:")) {
                String upper = sql.toUpperCase(Locale.ROOT);
                if (upper.contains("HANDLER")) {
                    try {
                        s.execute("HANDLER fztable CLOSE");
                    } catch (SQLException notOpen) {
                        // nothing open under that name
                    }
                }
                if (upper.contains("LOCK")) {
                    s.executeQuery("SELECT count(*) FROM " + PROBE).close();
                }
            }
            return fenced;
        } catch (SQLException e) {
            fenced.close();
            return attacker(settings);
        }
    }

    /** What the run reads after every statement: a text that changes with any change of the database's state. */
    interface Judge extends AutoCloseable {
        /** The state now (may reuse slow parts whose cheap signals say nothing changed). */
        String read() throws SQLException;

        /** The state now, every part read afresh. */
        String readAll() throws SQLException;

        /** What the judge did, for the run's figures. */
        String figures();

        @Override
        void close() throws SQLException;
    }

    /** A judge that is one query, read in full after every statement (H2, PostgreSQL). */
    private static final class QueryJudge implements Judge {
        private final Connection connection;
        private final PreparedStatement query;

        QueryJudge(String rawUrl, String sql) throws SQLException {
            connection = DriverManager.getConnection(rawUrl);
            query = connection.prepareStatement(sql);
        }

        @Override
        public String read() throws SQLException {
            try (ResultSet rs = query.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }

        @Override
        public String readAll() throws SQLException {
            return read();
        }

        @Override
        public String figures() {
            return "the judge's query after every statement";
        }

        @Override
        public void close() throws SQLException {
            connection.close();
        }
    }

    /** Refusals by their fencing SQLState; the database's own errors by their class (first two characters). */
    private static String outcome(SQLException e) {
        String state = e.getSQLState() == null ? "none" : e.getSQLState();
        return state.startsWith("ZF") ? state : "db:" + state.substring(0, Math.min(2, state.length()));
    }

    private static void entryPoint(Connection c, String sql, int entry) throws SQLException {
        switch (entry) {
            case 0 -> run(c, s -> s.execute(sql));
            case 1 -> run(c, s -> s.executeUpdate(sql));
            case 2 -> run(c, s -> s.executeQuery(sql).close());
            case 3 -> run(c, s -> s.executeLargeUpdate(sql));
            case 4 -> run(c, s -> {
                s.addBatch(sql);
                s.executeBatch();
            });
            case 5 -> {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.execute();
                }
            }
            case 6 -> {
                try (CallableStatement cs = c.prepareCall(sql)) {
                    cs.execute();
                }
            }
            default -> run(c, s -> s.execute(sql, Statement.RETURN_GENERATED_KEYS));
        }
    }

    private interface StatementUse {
        void use(Statement s) throws SQLException;
    }

    private static void run(Connection c, StatementUse use) throws SQLException {
        try (Statement s = c.createStatement()) {
            use.use(s);
        }
    }

    private static long hash(String sql) {
        long h = 1125899906842597L;
        for (int i = 0; i < sql.length(); i++) {
            h = 31 * h + sql.charAt(i);
        }
        return h ^ ((long) sql.length() << 48);
    }

    private void createData(TestDatabase database, String table, String procedure) throws SQLException {
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100), (2, 200), (3, 300)", "CREATE TABLE " + table
                        + "_log (n INT)");
        if (database == TestDatabase.MARIADB) {
            List<String> mariadb = new ArrayList<>(List.of("CREATE PROCEDURE " + procedure + "(t VARCHAR(64), n INT)"
                            + " BEGIN SET @fz = CONCAT('UPDATE ', t, ' SET balance = balance + ', n); PREPARE fz FROM @fz;"
                            + " EXECUTE fz; DEALLOCATE PREPARE fz; COMMIT; END",
                    "CREATE FUNCTION " + table + "_fn() RETURNS INT MODIFIES SQL DATA BEGIN UPDATE " + table
                            + " SET balance = balance + 1; RETURN 1; END"));
            // names as MariaDB reads identifiers: a digit first, multi-byte characters, a no-break space inside
            for (String name : List.of("1fzfn", "\u20acfzfn", "a\u20acfzfn", "a\u00a0fzfn")) {
                mariadb.add("CREATE FUNCTION `" + name + "`() RETURNS INT MODIFIES SQL DATA BEGIN UPDATE " + table
                        + " SET balance = balance + 1; RETURN 1; END");
            }
            for (String event : List.of("INSERT", "UPDATE", "DELETE")) {
                mariadb.add("CREATE TRIGGER " + table + "_" + event.toLowerCase(Locale.ROOT) + " AFTER " + event
                        + " ON " + table + " FOR EACH ROW INSERT INTO " + table + "_log VALUES (1)");
            }
            mariadb.add("CREATE TABLE " + PROBE + " (n INT)");
            TestDatabase.exec(raw, mariadb.toArray(new String[0]));
            return;
        }
        String statementTrigger = "CREATE TRIGGER " + table + "_statement AFTER INSERT" + (database == TestDatabase.H2
                ? ", UPDATE, DELETE" : " OR UPDATE OR DELETE") + " ON " + table + " FOR EACH STATEMENT ";
        if (database == TestDatabase.H2) {
            TestDatabase.exec(raw, "CREATE ALIAS " + procedure + " FOR 'dev.fencing.jdbc.BypassProcedures.bump'",
                    // functions named like keywords, which H2 calls all the same
                    "CREATE ALIAS \"BY\" FOR 'dev.fencing.jdbc.BypassProcedures.bump'",
                    "CREATE ALIAS \"THEN\" FOR 'dev.fencing.jdbc.BypassProcedures.bump'",
                    statementTrigger + "CALL \"" + StatementLogTrigger.class.getName() + "\"");
        } else {
            TestDatabase.exec(raw, "CREATE PROCEDURE " + procedure + "(t text, n int) LANGUAGE plpgsql AS $$ BEGIN"
                    + " EXECUTE format('UPDATE %I SET balance = balance + %s', t, n); COMMIT; END $$",
                    "CREATE FUNCTION " + table + "_logged() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO "
                            + table + "_log VALUES (1); RETURN NULL; END $$",
                    statementTrigger + "EXECUTE FUNCTION " + table + "_logged()",
                    // functions named like keywords, in the run's own schema
                    "CREATE FUNCTION by() RETURNS int LANGUAGE sql AS 'UPDATE " + table
                            + " SET balance = balance + 1 RETURNING 1'",
                    "CREATE FUNCTION \"join\"() RETURNS int LANGUAGE sql AS 'UPDATE " + table
                            + " SET balance = balance + 1 RETURNING 1'");
        }
    }

    /** Real statements on the fuzz table: writes of every kind, reads, settings, and the fence's own table. */
    private static List<String> corpus(TestDatabase database, String table, String procedure, String resource,
            String epochTable) {
        String stored = database == TestDatabase.H2 ? table.toUpperCase(Locale.ROOT) : table;
        List<String> corpus = new ArrayList<>(List.of(
                "UPDATE {T} SET balance = balance + 1 WHERE id = 1",
                "UPDATE {T} SET balance = 0",
                "DELETE FROM {T} WHERE id = 2",
                "DELETE FROM {T}",
                "INSERT INTO {T} (id, balance) VALUES (10, 1)",
                "INSERT INTO {T} VALUES (11, 2), (12, 3)",
                "INSERT INTO {T} SELECT id + 100, balance FROM {T}",
                "MERGE INTO {T} t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET balance = 7",
                "TRUNCATE TABLE {T}",
                "DROP TABLE {T}",
                "ALTER TABLE {T} ADD COLUMN extra INT",
                "CREATE TABLE {T}_f AS SELECT * FROM {T}",
                "CREATE INDEX {T}_ix ON {T} (balance)",
                "CALL {P}('{S}', 1)",
                "{call {P}('{S}', 1)}",
                "EXPLAIN ANALYZE UPDATE {T} SET balance = 1",
                "UPDATE {E} SET epoch = 1",
                "DELETE FROM {E} WHERE resource = '{R}'",
                "INSERT INTO {E} (resource, epoch) VALUES ('{R}', 99)",
                "SELECT * FROM {T} WHERE id = 1",
                "SELECT id, balance FROM {T} ORDER BY id",
                "SELECT count(*) FROM {T} t1, {T} t2",
                "WITH x AS (SELECT * FROM {T}) SELECT * FROM x",
                "VALUES (1)",
                "SELECT 'UPDATE {T} SET balance = 0; --' AS text",
                "SELECT 1 /* ; DELETE FROM {T} */",
                "BEGIN",
                "COMMIT",
                "ROLLBACK"));
        if (database == TestDatabase.H2) {
            corpus.addAll(List.of(
                    "MERGE INTO {T} KEY (id) VALUES (1, 5)",
                    "SELECT * FROM FINAL TABLE (UPDATE {T} SET balance = 3)",
                    "SELECT id FROM OLD TABLE (DELETE FROM {T} WHERE id = 3)",
                    "EXECUTE IMMEDIATE 'UPDATE {T} SET balance = 9'",
                    "SET @x = 1",
                    "SELECT 1 // it's a comment",
                    "SELECT $$a; b$$",
                    "SET AUTOCOMMIT TRUE",
                    "SET AUTOCOMMIT FALSE",
                    "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
                    "SELECT BY('{S}', 1)",
                    "SELECT THEN('{S}', 1)",
                    "SET @x = BY('{S}', 1)",
                    "SELECT * FROM {E} FOR/**/UPDATE",
                    "MERGE INTO fenc\u0131ng_epoch KEY(resource) VALUES('{R}', 99)",
                    // Texts the parser cannot read, which now run after the locking read with a token.
                    "SCRIPT NODATA",
                    "UPDATE {T} SET balance = ARRAY['a', 'b'][1]",
                    "CREATE LOCAL TEMPORARY TABLE {T}_tmp (id INT)",
                    "DROP ALL OBJECTS"));
        } else if (database == TestDatabase.MARIADB) {
            corpus.addAll(List.of(
                    "INSERT INTO {T} VALUES (1, 0) ON DUPLICATE KEY UPDATE balance = 0",
                    "REPLACE INTO {T} VALUES (1, 9)",
                    "INSERT IGNORE INTO {T} VALUES (1, 9), (13, 4)",
                    "INSERT INTO {T} SET id = 14, balance = 1",
                    "UPDATE {T} a JOIN {T} b ON a.id = b.id SET a.balance = 2",
                    "DELETE a FROM {T} a JOIN {T} b ON a.id = b.id WHERE a.id = 1",
                    "DELETE e FROM {T} a JOIN {E} e",
                    "UPDATE {T} SET balance = 4 ORDER BY id LIMIT 1",
                    "DELETE FROM {T} WHERE id = 3 RETURNING id",
                    "SET STATEMENT max_statement_time = 0 FOR UPDATE {T} SET balance = 5",
                    "SET STATEMENT sql_mode = '' FOR DELETE FROM {T}",
                    "LOAD DATA INFILE '/nonexistent' INTO TABLE {T}",
                    "RENAME TABLE {T} TO {T}_r",
                    "CREATE TABLE {T}_f SELECT * FROM {T}",
                    "SELECT {T}_fn()",
                    "DO {T}_fn()",
                    "SET @x = {T}_fn()",
                    "CALL {P}('{S}', 1)",
                    "HANDLER {T} OPEN",
                    "HANDLER {T} READ FIRST",
                    "HANDLER {T} CLOSE",
                    "LOCK TABLES {T} WRITE",
                    "UNLOCK TABLES",
                    "START TRANSACTION",
                    "SET autocommit = 0",
                    "SET autocommit = 1",
                    "SET sql_mode = 'NO_BACKSLASH_ESCAPES'",
                    "SET sql_mode = 'ANSI_QUOTES,PIPES_AS_CONCAT'",
                    "SET sql_mode = DEFAULT",
                    "SELECT 'a\\'' AS q",
                    "SELECT \"it's\" AS q",
                    "SELECT 1 # it's a comment",
                    "SELECT 1 -- it's a comment",
                    "SELECT 1 /*! , 2 */",
                    "/*!50000 UPDATE {T} SET balance = 6 */",
                    "SELECT 1 AS `a;b`",
                    "SELECT 1fzfn()",
                    "SELECT \u20acfzfn()",
                    "SET @x = a\u20acfzfn()",
                    "SELECT a\u00a0fzfn()",
                    "SELECT 1; SET NAMES gbk",
                    "SELECT 1; SET/**/CHARACTER SET sjis",
                    "SET STATEMENT character_set_client = gbk FOR SELECT 1",
                    "SET @@session.character_set_client = 'big5'",
                    "SELECT @@character_set_client",
                    "SELECT 1 AS `\u4e2d`, 2 AS `; UPDATE {T} SET balance = balance + 100 -- `",
                    "SELECT * FROM {E} FOR/**/UPDATE"));
        } else {
            corpus.addAll(List.of(
                    "INSERT INTO {T} VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET balance = 0",
                    "WITH d AS (DELETE FROM {T} RETURNING *) SELECT * FROM d",
                    "UPDATE {T} SET balance = 4 RETURNING id",
                    "SELECT * INTO {T}_f FROM {T}",
                    "COPY {T} FROM PROGRAM 'echo 9,9' WITH (FORMAT csv)",
                    "DO $$ BEGIN UPDATE {T} SET balance = 5; END $$",
                    "PREPARE p AS UPDATE {T} SET balance = 6",
                    "EXECUTE p",
                    "SET standard_conforming_strings = off",
                    "SET standard_conforming_strings = on",
                    "SELECT E'\\\\'' AS q",
                    "SELECT 'a\\' AS q",
                    "LOCK TABLE {T} IN SHARE MODE",
                    "SELECT $tag$ ; UPDATE {T} SET balance = 8; $tag$",
                    "PREPARE TRANSACTION 'fz'",
                    "EXPLAIN (\"analyze\") UPDATE {T} SET balance = 1",
                    "DO $$ BEGIN UPDATE {T} SET balance = 5; COMMIT; UPDATE {T} SET balance = 6; END $$",
                    // Texts the parser cannot read, which now run after the locking read with a token.
                    "UPDATE ONLY {T} SET balance = 7",
                    "DELETE FROM ONLY {T} WHERE id = 2",
                    "MERGE INTO {T} t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DO NOTHING",
                    "MERGE INTO {T} t USING (SELECT 9 AS id) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT DEFAULT VALUES",
                    "UPDATE {T} SET balance = length(E'it\\'s')",
                    "CREATE RULE {T}_r AS ON UPDATE TO {T} DO INSTEAD NOTHING",
                    // Writes to temporary tables and PREPARE, which take no lock.
                    "CREATE TEMP TABLE {T} (id int, balance int)",
                    "UPDATE pg_temp.{T} SET balance = 0",
                    "SET search_path = public, pg_temp",
                    "PREPARE q AS DELETE FROM {T}",
                    "SELECT by()",
                    "SELECT join()",
                    "SELECT * FROM by()",
                    "PREPARE/**/TRANSACTION 'fz'",
                    "SELECT * FROM {E} FOR/**/NO KEY UPDATE"));
        }
        List<String> named = new ArrayList<>(corpus.size());
        for (String sql : corpus) {
            named.add(sql.replace("{T}", table).replace("{S}", stored).replace("{P}", procedure)
                    .replace("{R}", resource).replace("{E}", epochTable));
        }
        return named;
    }

    private static String checksumQuery(TestDatabase database, String table, String resource, String schema) {
        String rows = "(SELECT count(*) || ':' || coalesce(sum(id * 7919 + balance), 0) FROM " + table + ") || '|log '"
                + " || (SELECT count(*) FROM " + table + "_log)";
        String epoch = "(SELECT coalesce(max(epoch), 0) || '/' || count(*) FROM fencing_epoch WHERE resource = '"
                + resource + "')";
        if (database == TestDatabase.H2) {
            return "SELECT " + rows + " || '|' || " + epoch
                    + " || '|' || (SELECT count(*) FROM INFORMATION_SCHEMA.TABLES)"
                    + " || '|' || (SELECT count(*) FROM INFORMATION_SCHEMA.COLUMNS)"
                    + " || '|' || (SELECT count(*) FROM INFORMATION_SCHEMA.INDEXES)"
                    + " || '|' || (SELECT count(*) FROM fencing_epoch)";
        }
        return "SELECT " + rows + " || '|' || " + epoch
                + " || '|' || (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = '" + schema + "')"
                + " || '|' || (SELECT count(*) FROM information_schema.columns WHERE table_schema = '" + schema + "')"
                + " || '|' || (SELECT count(*) FROM fencing_epoch)";
    }
}
