package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.RequiresMariaDb;
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
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Enforcement by the database on MariaDB ({@code fencing enforce}, issue 28) with the {@code mariadb} command-line
 * client, run by {@code fencing exec} (which hands it the token through an option file), the driver beside it, and
 * plain sessions trying to get around it. The database is the judge: what the tables hold after each refusal.
 */
@RequiresMariaDb
class MariaDbEnforcementTest {
    @TempDir
    Path dir;
    String raw;
    String db;
    String epoch;
    String lease;
    String data;
    String resource;

    @BeforeEach
    void createFenceAndTable() throws Exception {
        assumeTrue(onPath("mariadb"), "the mariadb client is not installed");
        db = TestDatabase.unique("enf");
        raw = TestDatabase.MARIADB.rawUrl();
        epoch = db + ".epoch";
        lease = db + ".lease";
        data = db + ".data";
        resource = TestDatabase.unique("nightly");
        TestDatabase.exec(raw, "CREATE DATABASE " + db,
                "CREATE TABLE " + data + " (id INT AUTO_INCREMENT PRIMARY KEY, who VARCHAR(40) NOT NULL, token BIGINT,"
                        + " seq INT) ENGINE=InnoDB");
        Result init = cli("init");
        assertEquals(0, init.code, init.err);
        Result enforce = cli("enforce", data, "--resource", resource);
        assertEquals(0, enforce.code, enforce.err);
        assertTrue(enforce.out.contains(data + " is enforced for resource '" + resource + "'"), enforce.out);
    }

    @AfterEach
    void drop() throws SQLException {
        if (db != null && raw != null) {
            TestDatabase.exec(raw, "DROP DATABASE IF EXISTS " + db);
        }
    }

    /**
     * C2, C4, C7: the old job (the mariadb client under {@code fencing exec}) is paused past its lease (its
     * {@code exec} stopped with SIGSTOP, so nothing renews and nothing stops the client); a new owner's {@code fencing
     * exec} takes the lease over and writes with the mariadb client; the old job's next statement is refused by the
     * database with ZF002 and changes nothing.
     */
    @Test
    void aPausedMariadbJobIsFencedByTheDatabaseAfterANewOwnerWrote_C2_C4() throws Exception {
        Path oldJob = script("old.sql", "INSERT INTO " + data + " (who, token, seq) VALUES ('old', @fencing_token, 1);",
                "DELIMITER //",
                "BEGIN NOT ATOMIC WHILE NOT EXISTS (SELECT 1 FROM " + data + " WHERE who = 'new') DO DO SLEEP(0.05);"
                        + " END WHILE; END//",
                "DELIMITER ;",
                "INSERT INTO " + data + " (who, token, seq) VALUES ('old', @fencing_token, 2);");
        Path oldLog = dir.resolve("old.log");
        ProcessBuilder builder = new ProcessBuilder(ExecProcessTest.javaCommand(FencingCli.class.getName(),
                withDb("exec", "--resource", resource, "--ttl", "2s", "--", "sh", "-c", mariadb() + " < \"$0\"",
                        oldJob.toString()))).redirectErrorStream(true).redirectOutput(oldLog.toFile());
        Process old = builder.start();
        try {
            await(() -> count("who = 'old'") == 1, "the old job wrote with its token", oldLog);
            long oldToken = mark();
            signal("STOP", old.pid()); // paused: no renewal, no SIGTERM to the client

            Path newJob = script("new.sql", "INSERT INTO " + data + " (who, token, seq) VALUES ('new', @fencing_token, 1);");
            Result takeover = mariadbUnderExec(newJob, "--wait", "30s");
            assertEquals(0, takeover.code, takeover.out + takeover.err);
            long newToken = mark();
            assertTrue(newToken > oldToken, "the new owner's token reached the resource");

            await(() -> log(oldLog).contains("ZF002"), "the old job's next statement was refused", oldLog);
            assertTrue(log(oldLog).contains("stale token " + oldToken), log(oldLog));
            assertEquals(1, count("who = 'old'"), "nothing of the old job's late statement was written");
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
     * C1, C2, C7: equal tokens write many times; no token, a stale, invalid or never-issued token, a token for another
     * resource or another case of the name are refused with the fence's SQLStates and change nothing.
     */
    @Test
    void theMariadbClientWritesOnlyWithACurrentTokenForTheTablesResource_C1_C2_C7() throws Exception {
        Path write = script("write.sql", "INSERT INTO " + data + " (who, token, seq) VALUES ('job', @fencing_token, 1);",
                "INSERT INTO " + data + " (who, token, seq) VALUES ('job', @fencing_token, 2);",
                "UPDATE " + data + " SET seq = seq + 10 WHERE who = 'job';");
        Result first = mariadbUnderExec(write);
        assertEquals(0, first.code, first.out + first.err);
        long token = mark();
        assertEquals(2, count("who = 'job' AND seq > 10 AND token = " + token), "equal tokens write many times");

        assertRefused(FencingSqlState.INVALID_TOKEN, null, null, "DELETE FROM " + data);
        for (String invalid : new String[] {"'abc'", "0", "-3", "99999999999999999999", "7.0", "'7\\n'", "' 7x'", "''"}) {
            assertRefused(FencingSqlState.INVALID_TOKEN, "'" + resource + "'", invalid, "DELETE FROM " + data);
        }
        assertRefused(FencingSqlState.INVALID_TOKEN, "'other-resource'", Long.toString(token), "DELETE FROM " + data);
        assertRefused(FencingSqlState.INVALID_TOKEN, "'" + resource.toUpperCase() + "'", Long.toString(token),
                "DELETE FROM " + data);
        assertRefused(FencingSqlState.INVALID_TOKEN, "'" + resource + " '", Long.toString(token), "DELETE FROM " + data);
        assertRefused(FencingSqlState.TOKEN_NOT_ISSUED, "'" + resource + "'", Long.toString(token + 1),
                "DELETE FROM " + data);
        assertEquals(2, count("true"), "nothing was changed");
        assertEquals(token, mark(), "a refused token never moved the mark");

        Result second = mariadbUnderExec(write); // the next run: a newer token, which advances the mark
        assertEquals(0, second.code, second.out + second.err);
        assertEquals(token + 1, mark());
        assertRefused(FencingSqlState.STALE_TOKEN, "'" + resource + "'", Long.toString(token), "INSERT INTO " + data
                + " (who) VALUES ('late')");
        assertEquals(4, count("true"), "nothing was changed");
    }

    /**
     * Hostile sessions outside the driver (C2, C5): with a stale token, every MySQL-family form that changes rows is
     * refused and changes nothing (multi-table UPDATE and DELETE, ON DUPLICATE KEY UPDATE, REPLACE, INSERT IGNORE,
     * UPDATE IGNORE, LOAD DATA with IGNORE); a token changed mid-transaction is checked again; a forged driver record
     * admits only a current token. TRUNCATE fires no trigger on MariaDB: it is not enforced (DROP must be withheld).
     */
    @Test
    void sessionsOutsideTheDriverCannotGetAroundTheTriggers_C2_C5() throws Exception {
        TestDatabase.exec(raw, "CREATE TABLE " + db + ".other (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
                "INSERT INTO " + db + ".other VALUES (1, 0), (2, 0)");
        Result first = mariadbUnderExec(script("w.sql", "INSERT INTO " + data + " (id, who, token) VALUES (1, 'a',"
                + " @fencing_token), (2, 'b', @fencing_token);"));
        assertEquals(0, first.code, first.err);
        long stale = mark();
        assertEquals(0, mariadbUnderExec(script("w2.sql", "UPDATE " + data + " SET seq = 1;")).code);
        long current = mark();
        assertEquals(stale + 1, current);
        Path rows = dir.resolve("rows.txt");
        Files.writeString(rows, "1\tloaded\t1\t1\n9\tloaded\t1\t1\n");
        String staleVars = "SET @fencing_resource = '" + resource + "', @fencing_token = " + stale + "; ";
        String[] writes = {
            "UPDATE " + db + ".other o JOIN " + data + " d ON d.id = o.id SET o.v = 9, d.who = 'multi'",
            "DELETE o, d FROM " + db + ".other o JOIN " + data + " d ON d.id = o.id",
            "INSERT INTO " + data + " (id, who) VALUES (1, 'odku') ON DUPLICATE KEY UPDATE who = 'odku'",
            "REPLACE INTO " + data + " (id, who) VALUES (1, 'replaced')",
            "INSERT IGNORE INTO " + data + " (id, who) VALUES (1, 'x'), (5, 'ignored')",
            "UPDATE IGNORE " + data + " SET who = 'ignored'",
            "LOAD DATA LOCAL INFILE '" + rows + "' IGNORE INTO TABLE " + data,
            "LOAD DATA LOCAL INFILE '" + rows + "' REPLACE INTO TABLE " + data,
            "DELETE FROM " + data + " ORDER BY id LIMIT 1",
        };
        for (String write : writes) {
            Result refused = mariadb("--local-infile=1", "-e", staleVars + write);
            assertTrue(refused.code != 0 && refused.err.contains("(" + FencingSqlState.STALE_TOKEN + ")"),
                    write + ": " + refused.err);
        }
        assertEquals(2, count("who IN ('a', 'b') AND seq = 1"), "the table is as the current owner left it");
        assertEquals(0, rowCount(db + ".other", "v <> 0"), "a refused multi-table UPDATE changed no table");
        assertEquals(2, rowCount(db + ".other", "true"));

        // a token set mid-transaction is checked for every row, whatever the transaction did before
        Result midTransaction = mariadb("-e", "SET @fencing_resource = '" + resource + "', @fencing_token = " + current
                + "; START TRANSACTION; UPDATE " + data + " SET seq = 2 WHERE id = 1; SET @fencing_token = " + stale
                + "; UPDATE " + data + " SET seq = 3 WHERE id = 2; COMMIT;");
        assertTrue(midTransaction.err.contains("(" + FencingSqlState.STALE_TOKEN + ")"), midTransaction.err);
        assertEquals(0, count("seq = 3"));
        // the driver's record is a claim like any other: a stale one is refused, the current one admits
        Result forged = mariadb("-e", "SET @fencing_guard = '," + resource + " " + stale + ",'; DELETE FROM " + data);
        assertTrue(forged.err.contains("(" + FencingSqlState.STALE_TOKEN + ")"), forged.err);
        Result forgedHigh = mariadb("-e", "SET @fencing_guard = '," + resource + " " + (current + 5) + ",'; DELETE FROM "
                + data);
        assertTrue(forgedHigh.err.contains("(" + FencingSqlState.TOKEN_NOT_ISSUED + ")"), forgedHigh.err);
        assertEquals(2, count("true"));
        assertEquals(current, mark());

        // TRUNCATE fires no trigger on MariaDB: a role with DROP empties the table (docs/enforcement.md)
        assertEquals(0, mariadb("-e", "TRUNCATE TABLE " + data).code);
        assertEquals(0, count("true"), "TRUNCATE is not enforced: DROP must be withheld from application accounts");
    }

    /**
     * C4, C11, issue 28 item 3: the driver (MariaDB Connector/J and MySQL Connector/J) and the mariadb client write one
     * enforced table of one resource. The driver's writes pass the triggers with nothing more sent (its locking read
     * records what it checked); a statement spanning two resources passes both tables' triggers; after the client's
     * new owner advances the mark, the driver's old connection is refused and so is the client with the old token; a
     * driver connection for another (declared) resource is refused by the trigger (ZF001).
     */
    @Test
    void theDriverAndTheMariadbClientShareOneEnforcedTable_C4_C11() throws Exception {
        Path write = script("write.sql", "INSERT INTO " + data + " (who, token) VALUES ('client', @fencing_token);");
        assertEquals(0, mariadbUnderExec(write).code);
        long t1 = mark();
        try (Connection mariaDb = driver(TestDatabase.MARIADB, t1); Connection mySql = driver(TestDatabase.MYSQL, t1)) {
            for (Connection c : List.of(mariaDb, mySql)) {
                insert(c, "driver", t1);                                    // auto-commit: the driver's transaction
                c.setAutoCommit(false);
                insert(c, "driver", t1);                                    // the caller's transaction
                try (PreparedStatement batch = c.prepareStatement("INSERT INTO " + data + " (who, token) VALUES (?, ?)")) {
                    for (int i = 0; i < 3; i++) {
                        batch.setString(1, "driver-batch");
                        batch.setLong(2, t1);
                        batch.addBatch();
                    }
                    batch.executeBatch();
                }
                c.commit();
                c.setAutoCommit(true);
            }
            assertEquals(2 * (2 + 3) + 1, count("token = " + t1));

            Result second = mariadbUnderExec(write);                          // a new owner: the client, newer token
            assertEquals(0, second.code, second.out + second.err);
            long t2 = mark();
            assertEquals(t1 + 1, t2);
            long oldRows = count("token = " + t1);
            for (Connection c : List.of(mariaDb, mySql)) {
                SQLException refused = assertThrows(SQLException.class, () -> insert(c, "late", t1));
                assertEquals(FencingSqlState.STALE_TOKEN, refused.getSQLState(), refused.getMessage());
            }
            assertRefused(FencingSqlState.STALE_TOKEN, "'" + resource + "'", Long.toString(t1), "INSERT INTO " + data
                    + " (who) VALUES ('late')");
            assertEquals(oldRows, count("token = " + t1), "nothing of the old token after the new owner wrote");
            assertEquals(0, count("who = 'late'"));
            try (Connection next = driver(TestDatabase.MARIADB, t2)) {
                insert(next, "driver", t2);
            }
            assertEquals(2, count("token = " + t2));

        }
        String other = resource + "-other";
        assertEquals(0, cli("declare", other).code);
        try (Connection otherResource = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + epoch,
                "fencing.lease.table=" + lease, "fencing.resource=" + other))) {
            otherResource.unwrap(dev.fencing.jdbc.FencedConnection.class).setFencingToken(1);
            SQLException refused = assertThrows(SQLException.class, () -> insert(otherResource, "other", 1));
            assertEquals(FencingSqlState.INVALID_TOKEN, refused.getSQLState(), refused.getMessage());
            assertTrue(refused.getMessage().contains("(table " + data + ")"), "the trigger refused it: "
                    + refused.getMessage());
        }
        assertEquals(0, count("who = 'other'"));

        // one statement, two resources (a second table enforced for and mapped to another resource, so the
        // driver checks its token too): the driver locks both and records both; each table's trigger finds its own
        String billing = TestDatabase.unique("billing");
        TestDatabase.exec(raw, "CREATE TABLE " + db + ".invoices (id INT PRIMARY KEY, n INT) ENGINE=InnoDB");
        assertEquals(0, cli("enforce", db + ".invoices", "--resource", billing).code);
        assertEquals(0, cli("map", db + ".invoices", "--resource", billing).code);
        try (Connection next = driver(TestDatabase.MARIADB, mark());
             Fencing.Scope ignored = Fencing.scope(resource, mark()).with(billing, 1);
             Statement s = next.createStatement()) {
            s.executeUpdate("INSERT INTO " + db + ".invoices VALUES (1, 0)");
            assertEquals(2, s.executeUpdate("UPDATE " + data + " d JOIN " + db + ".invoices i ON i.id = 1"
                    + " SET d.seq = 7, i.n = 7 WHERE d.who = 'client' AND d.token = " + mark()));
        }
        assertEquals(1, count("seq = 7"));
    }

    /**
     * C4: writers of one token never wait for each other through the triggers: two sessions outside the driver and a
     * driver connection write while another transaction that wrote with the same token is still open (each holds the
     * epoch row's shared lock), with a lock wait bound of 2 s. (The procedure's reads of the epoch table shared the
     * handle of its advance's UPDATE at first, which made them exclusive: these writers waited, and four of them
     * deadlocked.)
     */
    @Test
    void writersOfOneTokenDoNotWaitForEachOtherThroughTheTriggers_C4() throws Exception {
        try (TokenIssuer issuer = issuer()) {
            long t = issuer.acquire(resource, "owner", Duration.ofSeconds(60)).token();
            try (Connection first = client(t); Connection second = client(t); Connection third = client(t);
                 Connection driver = driver(TestDatabase.MARIADB, t)) {
                for (Connection c : List.of(first, second, third)) {
                    try (Statement s = c.createStatement()) {
                        s.execute("SET SESSION innodb_lock_wait_timeout = 2");
                    }
                }
                first.setAutoCommit(false);
                insert(first, "first", t); // advances the mark, then holds the row until commit
                first.commit();
                insert(first, "first", t); // holds the epoch row's shared lock: its transaction stays open
                second.setAutoCommit(false);
                long started = System.nanoTime();
                insert(second, "second", t);
                insert(third, "third", t);
                insert(driver, "driver", t);
                long waited = (System.nanoTime() - started) / 1_000_000;
                assertTrue(waited < 1500, "same-token writers waited " + waited + " ms for an open transaction");
                second.commit();
                first.commit();
            }
            assertEquals(5, count("token = " + t));
        }
    }

    /**
     * C4 with real threads: four plain sessions outside the driver (setting the user variables, as the mariadb client
     * does) and two driver connections write at the current token in transactions of two statements with a pause after
     * each, while a new owner advances the mark through the trigger. Once the new owner's advance holds the epoch row,
     * no write with the old token commits, and every old writer ends with ZF002.
     */
    @Test
    void oldWritersOutsideAndInsideTheDriverNeverCommitAfterTheNewOwner_C4() throws Exception {
        try (TokenIssuer issuer = issuer()) {
            // the mark established first: six first writers advancing at once may deadlock (1213, retry: see
            // concurrentAdvancesThroughTheTriggerDeadlockAtWorstAndARetryIsAdmitted_C2_C4), which is not what this checks
            long t1 = issuer.acquire(resource, "old-owner", Duration.ofSeconds(60), AcquireOptions.DEFAULT
                    .revokeImmediately(true)).token();
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
                        s.executeUpdate("INSERT INTO " + data + " (who, token) VALUES ('new', " + t2 + ")");
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
     * Issue 28 item 4: an account with nothing but DML on the table is fenced without any privilege on the fence's
     * tables (the triggers and their procedure run with their definer's rights), and cannot lift the enforcement: no
     * dropping the triggers, no TRUNCATE, no raising a mark by hand. {@code enforce --list} names the accounts that
     * could, and not this one; a foreign key that cascades into an enforced table from a table that is not enforced
     * for its resource is refused, and {@code --off} removes the triggers.
     */
    @Test
    void anAccountWithOnlyDmlIsFencedAndCannotLiftEnforcement() throws Exception {
        String app = TestDatabase.unique("enf_app");
        TestDatabase.exec(raw, "CREATE USER '" + app + "'@'%'", "GRANT SELECT, INSERT, UPDATE, DELETE ON " + data
                + " TO '" + app + "'@'%'");
        try {
            Result token = cli("acquire", "--resource", resource, "--holder", "job", "--ttl", "60s");
            assertEquals(0, token.code, token.err);
            String t = token.out.strip();
            String vars = "SET @fencing_resource = '" + resource + "', @fencing_token = " + t + "; ";
            Result writes = mariadbAs(app, "-e", vars + "INSERT INTO " + data + " (who, token) VALUES ('app', " + t + ")");
            assertEquals(0, writes.code, "no privilege on the fence's tables is needed: " + writes.err);
            assertEquals(Long.parseLong(t), mark(), "the trigger advanced the mark for the account");
            for (String lift : new String[] {"DROP TRIGGER " + db + ".fencing_enforce_i_data", "TRUNCATE TABLE " + data,
                "UPDATE " + epoch + " SET epoch = epoch + 100", "INSERT INTO " + lease + " (resource, issued) VALUES ('x', 5)",
                "ALTER TABLE " + data + " ENGINE=MyISAM", "CALL " + db + ".fencing_enforce_epoch('" + resource + "', 'x')"}) {
                Result refused = mariadbAs(app, "-e", vars + lift);
                assertTrue(refused.code != 0 && (refused.err.contains("ERROR 1142") || refused.err.contains("ERROR 1370")
                        || refused.err.contains("ERROR 1044")), lift + ": " + refused.err);
            }
            Result noToken = mariadbAs(app, "-e", "DELETE FROM " + data);
            assertTrue(noToken.err.contains("(" + FencingSqlState.INVALID_TOKEN + ")"), noToken.err);
            assertEquals(1, count("true"));
            assertEquals(Long.parseLong(t), mark());

            Result list = cli("enforce", "--list");
            assertEquals(0, list.code, list.err);
            assertTrue(list.out.contains(data) && list.out.contains(resource) && list.out.contains("enforced"), list.out);
            assertTrue(list.out.contains("holds DROP on the table"), "root may TRUNCATE: " + list.out);
            assertTrue(!list.out.contains(app), "DML alone cannot lift the enforcement: " + list.out);

            TestDatabase.exec(raw, "DROP TRIGGER " + db + ".fencing_enforce_d_data");
            assertTrue(cli("enforce", "--list").out.contains("NOT IN FORCE"), "a dropped trigger is reported");
            assertEquals(0, cli("enforce", data, "--resource", resource).code);
            assertTrue(!cli("enforce", "--list").out.contains("NOT IN FORCE"), "enforce again puts it back in force");
            Result moved = cli("enforce", data, "--resource", resource + "-other");
            assertEquals(64, moved.code, "a table enforced for one resource is not moved silently: " + moved.err);

            TestDatabase.exec(raw, "CREATE TABLE " + db + ".parent (id INT PRIMARY KEY) ENGINE=InnoDB",
                    "CREATE TABLE " + db + ".child (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES " + db
                            + ".parent (id) ON DELETE CASCADE) ENGINE=InnoDB",
                    "CREATE TABLE " + db + ".plain (id INT PRIMARY KEY) ENGINE=MyISAM");
            Result cascade = cli("enforce", db + ".child", "--resource", resource);
            assertEquals(64, cascade.code, cascade.out);
            assertTrue(cascade.err.contains("without firing triggers"), cascade.err);
            assertEquals(0, cli("enforce", db + ".child", db + ".parent", "--resource", resource).code,
                    "enforced together with its parent, the cascade is covered");
            Result myIsam = cli("enforce", db + ".plain", "--resource", resource);
            assertEquals(64, myIsam.code);
            assertTrue(myIsam.err.contains("not InnoDB"), myIsam.err);

            Result off = cli("enforce", "--off", data);
            assertEquals(0, off.code, off.err);
            assertTrue(!cli("enforce", "--list").out.contains(data + " "), "--off took it out");
            assertEquals(0, mariadb("-e", "DELETE FROM " + data).code, "no longer enforced");
        } finally {
            TestDatabase.exec(raw, "DROP USER IF EXISTS '" + app + "'@'%'");
        }
    }

    /**
     * C2, C7 (review B4): a table whose rows a cascade changes (at any depth, either direction) cannot be enforced for
     * another resource than the table at the other end. The reviewer's sequence: parent, child and grandchild enforced
     * together for r1, the parent taken out and enforced for r2, whose token then deleted the r1 child's rows through
     * ON DELETE CASCADE. Now enforce refuses and changes nothing, and --list reports such a pair NOT IN FORCE.
     */
    @Test
    void aCascadeBetweenTablesOfTwoResourcesIsRefusedAtEnforceAndReported_C2() throws Exception {
        String parent = db + ".parent";
        String child = db + ".child";
        String grand = db + ".grand";
        String r2 = resource + "-r2";
        TestDatabase.exec(raw, "CREATE TABLE " + parent + " (id INT PRIMARY KEY) ENGINE=InnoDB",
                "CREATE TABLE " + child + " (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES " + parent
                        + " (id) ON DELETE CASCADE) ENGINE=InnoDB",
                "CREATE TABLE " + grand + " (id INT PRIMARY KEY, cid INT, FOREIGN KEY (cid) REFERENCES " + child
                        + " (id) ON UPDATE CASCADE ON DELETE CASCADE) ENGINE=InnoDB");
        assertEquals(0, cli("declare", r2).code);
        Result all = cli("enforce", parent, child, grand, "--resource", resource);
        assertEquals(0, all.code, all.err);
        assertEquals(0, cli("enforce", "--off", parent).code);

        Result moved = cli("enforce", parent, "--resource", r2);
        assertEquals(64, moved.code, "a parent cascading into a table of another resource: " + moved.out);
        assertTrue(moved.err.contains(child) && moved.err.contains("'" + resource + "'"), moved.err);
        assertTrue(cli("enforce", "--list").out.lines().noneMatch(l -> l.startsWith(parent + " ")), "nothing was changed");

        // at depth: the child out too, the parent's change cascades through it into the grandchild
        assertEquals(0, cli("enforce", "--off", child).code);
        Result deep = cli("enforce", parent, "--resource", r2);
        assertEquals(64, deep.code, deep.out);
        assertTrue(deep.err.contains(grand), deep.err);
        // the other direction: a child whose cascading ancestor is enforced for another resource
        assertEquals(0, cli("enforce", "--off", grand).code);
        assertEquals(0, cli("enforce", parent, child, "--resource", resource).code);
        Result up = cli("enforce", grand, "--resource", r2);
        assertEquals(64, up.code, up.out);

        // what a server that got there anyway (triggers written by hand) is reported as
        {
            dev.fencing.sql.MariaDbEnforceSql enforceSql = new dev.fencing.sql.MariaDbEnforceSql(
                    dev.fencing.sql.EpochTable.resolved(db, "epoch"), dev.fencing.sql.EpochTable.resolved(db, "lease"));
            TestDatabase.exec(raw, enforceSql.install(db, "grand", r2).toArray(String[]::new));
        }
        Result list = cli("enforce", "--list");
        String grandLine = list.out.lines().filter(l -> l.startsWith(grand + " ")).findFirst().orElseThrow();
        assertTrue(grandLine.contains("NOT IN FORCE"), list.out);
        String childLine = list.out.lines().filter(l -> l.startsWith(child + " ")).findFirst().orElseThrow();
        assertTrue(childLine.contains("NOT IN FORCE"), "both ends of the pair: " + list.out);
        assertTrue(list.out.contains("enforced for resource '" + r2 + "'"), list.out);
    }

    /**
     * C4, C7 (review B2): a trigger of someone else's on the writer table (the reviewer's: {@code BEFORE INSERT ... SET
     * NEW.resource = CONCAT('x', NEW.resource)}, so a raise's {@code DELETE} does not meet the row and does not wait
     * for a prepared branch) or on the session table puts the tables NOT IN FORCE, and --list names the accounts that
     * may write, alter or add triggers to the writer and session tables, at table and column level.
     */
    @Test
    void aForeignTriggerOnTheWriterOrSessionTableIsNotInForceAndTheirGranteesAreNamed_C4_C7() throws Exception {
        String app = TestDatabase.unique("enf_trg");
        String col = TestDatabase.unique("enf_col");
        String line = data + " ";
        assertTrue(cli("enforce", "--list").out.lines().anyMatch(l -> l.startsWith(line) && l.contains("enforced")));
        TestDatabase.exec(raw, "CREATE USER '" + app + "'@'%'", "CREATE USER '" + col + "'@'%'",
                "GRANT TRIGGER ON " + epoch + "_writer TO '" + app + "'@'%'",
                "GRANT INSERT (resource) ON " + epoch + "_session TO '" + col + "'@'%'");
        try {
            Result named = cli("enforce", "--list");
            assertTrue(named.out.contains(app) && named.out.contains(col), named.out);
            for (String table : List.of(epoch + "_writer", epoch + "_session")) {
                TestDatabase.exec(raw, "CREATE TRIGGER " + db + ".foreign_trg BEFORE INSERT ON " + table
                        + " FOR EACH ROW SET NEW.resource = CONCAT('x', NEW.resource)");
                Result list = cli("enforce", "--list");
                assertTrue(list.out.lines().anyMatch(l -> l.startsWith(line) && l.contains("NOT IN FORCE")),
                        "a trigger on " + table + ": " + list.out);
                TestDatabase.exec(raw, "DROP TRIGGER " + db + ".foreign_trg");
                assertTrue(cli("enforce", "--list").out.lines().anyMatch(l -> l.startsWith(line)
                        && l.contains("enforced")), "back in force once it is gone");
            }
        } finally {
            TestDatabase.exec(raw, "DROP USER IF EXISTS '" + app + "'@'%'", "DROP USER IF EXISTS '" + col + "'@'%'");
        }
    }

    /**
     * C4, C7 with XA (issue 28, open item): a late owner outside the driver (MariaDB Connector/J, no fencing driver)
     * writes at the current mark inside an XA branch and prepares it. XA PREPARE releases the epoch row's shared lock,
     * but not the exclusive lock on the connection's writer row that the trigger changed, and a raise deletes the
     * resource's writer rows first: the takeover ({@code acquire} with immediate revocation) waits while the branch is
     * prepared (or fails at its lock wait bound with the mark unchanged). A branch committed while it waits lands
     * before the new mark (the old owner's write at its own mark); a branch rolled back lands nothing, and no XA COMMIT
     * after the takeover can change the table. (Before: the takeover raised the mark at once and the XA COMMIT after it
     * wrote the old owner's row under the new mark.)
     */
    @Test
    void aPreparedXaBranchAtTheMarkHoldsOffATakeover_C4_C7() throws Exception {
        try (TokenIssuer issuer = issuer()) {
            long t1 = issuer.acquire(resource, "old", Duration.ofSeconds(60), AcquireOptions.DEFAULT
                    .revokeImmediately(true)).token();
            String first = "'" + resource + "-1'";
            String second = "'" + resource + "-2'";
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                prepareXaWrite(t1, first, "xa-committed");
                java.util.concurrent.Future<Long> takeover = takeOver(pool, issuer, "new");
                Thread.sleep(1500);
                assertTrue(!takeover.isDone(), "the takeover waits for the prepared branch");
                assertEquals(t1, mark(), "the mark is unchanged while the branch is prepared");
                TestDatabase.exec(raw, "XA COMMIT " + first);
                long t2 = takeover.get(30, TimeUnit.SECONDS);
                assertEquals(t2, mark(), "the takeover completed once the branch was resolved");
                assertEquals(1, count("who = 'xa-committed' AND token = " + t1), "committed before the new mark");

                prepareXaWrite(t2, second, "xa-late");
                java.util.concurrent.Future<Long> next = takeOver(pool, issuer, "newer");
                Thread.sleep(1500);
                assertTrue(!next.isDone(), "the takeover waits for the prepared branch");
                assertEquals(t2, mark());
                TestDatabase.exec(raw, "XA ROLLBACK " + second);
                long t3 = next.get(30, TimeUnit.SECONDS);
                assertEquals(t3, mark());
                SQLException gone = assertThrows(SQLException.class, () -> TestDatabase.exec(raw, "XA COMMIT " + second));
                assertEquals("XAE04", gone.getSQLState(), gone.toString());
                assertEquals(0, count("who = 'xa-late'"), "nothing of the branch after the takeover");
                assertEquals(1, count("true"));
            } finally {
                pool.shutdownNow();
                for (String xid : xaRecover()) {
                    TestDatabase.exec(raw, "XA ROLLBACK '" + xid + "'");
                }
                assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
            }
        }
    }

    /**
     * C4, C7, C10 (review B1): a session admitted by a registration (here forged, as the reviewer did, by an account
     * with INSERT on the session table; the insert's own trigger still holds it to its own id and the current mark)
     * prepares an XA branch that changes an enforced table with no token. The takeover ends the session (KILL) and
     * raises the mark; the raise now waits for the branch's writer row, so the branch cannot land after the new mark:
     * rolled back while the takeover waits, nothing of it is in the table. (Before: the probe took no writer row, the
     * takeover raised the mark at once, and XA COMMIT landed the old write after it.)
     */
    @Test
    void aPreparedXaBranchOfARegisteredSessionHoldsOffATakeover_C4_C7_C10() throws Exception {
        try (TokenIssuer issuer = issuer()) {
            long t1 = issuer.acquire(resource, "old", Duration.ofSeconds(60), AcquireOptions.DEFAULT
                    .revokeImmediately(true)).token();
            String xid = "'" + resource + "-reg'";
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
            try (Connection late = DriverManager.getConnection(raw); Statement s = late.createStatement()) {
                s.executeUpdate("INSERT INTO " + epoch + "_session (resource, conn_id, boot, token) VALUES ('" + resource
                        + "', CONNECTION_ID(), " + dev.fencing.sql.MariaDbSessionFenceSql.BOOT + ", " + t1 + ")");
                s.execute("XA START " + xid);
                s.executeUpdate("INSERT INTO " + data + " (who) VALUES ('xa-registered')");
                s.execute("XA END " + xid);
                s.execute("XA PREPARE " + xid);
                java.util.concurrent.Future<Long> takeover = takeOver(pool, issuer, "new");
                Thread.sleep(2000);
                assertTrue(!takeover.isDone(), "the takeover waits for the registered session's prepared branch");
                assertEquals(t1, mark(), "the mark is unchanged while the branch is prepared");
                TestDatabase.exec(raw, "XA ROLLBACK " + xid);
                long t2 = takeover.get(30, TimeUnit.SECONDS);
                assertEquals(t2, mark());
                SQLException gone = assertThrows(SQLException.class, () -> TestDatabase.exec(raw, "XA COMMIT " + xid));
                assertEquals("XAE04", gone.getSQLState(), gone.toString());
                assertEquals(0, count("who = 'xa-registered'"), "nothing of the branch after the takeover");
            } finally {
                pool.shutdownNow();
                for (String x : xaRecover()) {
                    TestDatabase.exec(raw, "XA ROLLBACK '" + x + "'");
                }
                assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
            }
            assertEquals(0, count("who = 'xa-registered'"), "the database holds none of the branch's write");
        }
    }

    /** A takeover with immediate revocation (the issuer raises the mark), in the background. */
    private java.util.concurrent.Future<Long> takeOver(java.util.concurrent.ExecutorService pool, TokenIssuer issuer,
                                                       String holder) {
        return pool.submit(() -> issuer.acquire(resource, holder, Duration.ofSeconds(60),
                AcquireOptions.DEFAULT.takeOver(true).revokeImmediately(true)).token());
    }

    /** A session outside the driver writes at {@code token} in XA branch {@code xid}, prepares it and disconnects. */
    private void prepareXaWrite(long token, String xid, String who) throws SQLException {
        try (Connection late = client(token); Statement s = late.createStatement()) {
            s.execute("XA START " + xid);
            s.executeUpdate("INSERT INTO " + data + " (who, token) VALUES ('" + who + "', " + token + ")");
            s.execute("XA END " + xid);
            s.execute("XA PREPARE " + xid);
        }
    }

    /** The prepared XA branches of this test (their gtrid starts with its resource). */
    private List<String> xaRecover() throws SQLException {
        List<String> found = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("XA RECOVER")) {
            while (rs.next()) {
                String xid = rs.getString(4);
                if (xid.startsWith(resource)) {
                    found.add(xid);
                }
            }
        }
        return found;
    }

    /**
     * C4 (issue 28, open item): writers of one token through the triggers keep not waiting for each other with the
     * writer rows (each connection changes its own), and an ordinary raise still waits only for open transactions of
     * the old mark: a transaction that wrote at the mark holds the takeover off until it commits.
     */
    @Test
    void writerRowsKeepOneTokensWritersParallelAndARaiseWaitsForOpenOnes_C4() throws Exception {
        try (TokenIssuer issuer = issuer()) {
            long t = issuer.acquire(resource, "owner", Duration.ofSeconds(60), AcquireOptions.DEFAULT
                    .revokeImmediately(true)).token();
            try (Connection a = client(t); Connection b = client(t)) {
                for (Connection c : List.of(a, b)) {
                    c.setAutoCommit(false);
                    try (Statement s = c.createStatement()) {
                        s.execute("SET SESSION innodb_lock_wait_timeout = 2");
                    }
                }
                insert(a, "a", t);
                insert(b, "b", t); // would wait 2 s and fail if the writer rows were shared
                insert(a, "a", t);
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
                try {
                    java.util.concurrent.Future<Long> takeover = pool.submit(() -> issuer.acquire(resource, "new",
                            Duration.ofSeconds(60), AcquireOptions.DEFAULT.takeOver(true).revokeImmediately(true)).token());
                    Thread.sleep(1000);
                    assertTrue(!takeover.isDone(), "the takeover waits for the open transactions of the old mark");
                    a.commit();
                    b.commit();
                    assertEquals(takeover.get(30, TimeUnit.SECONDS), mark());
                } finally {
                    pool.shutdownNow();
                }
                assertEquals(3, count("token = " + t));
                assertEquals(0, rowCount(epoch + "_writer", "true"), "the raise removed the old mark's writer rows");
            }
        }
    }

    /**
     * C2, C4, C10 (issue 28, open item): a connection the MariaDB session fence registered ({@code fencing.guard=
     * session}, MariaDB Connector/J and MySQL Connector/J) writes an enforced table with nothing but its caller's
     * statements: the procedure admits it by one probe of its registration (connection id and server start). A
     * stale record of an earlier token does not refuse it. A registration is not a pass for anyone else: a session
     * without a token is refused although a row of an earlier server start names its connection id, a session
     * registered for another resource is refused, and after a takeover the registered sessions are gone (ended by the
     * hand-over) with their rows, and nothing more of theirs lands. (Before: every write of a registered session was refused with ZF001.)
     */
    @Test
    void aSessionRegisteredByTheSessionFencePassesTheTriggersAndNoOneElse_C2_C10() throws Exception {
        try (TokenIssuer issuer = issuer()) {
            long earlier = issuer.acquire(resource, "earlier", Duration.ofSeconds(60), AcquireOptions.DEFAULT
                    .revokeImmediately(true)).token();
            long t = issuer.acquire(resource, "owner", Duration.ofSeconds(60), AcquireOptions.DEFAULT.takeOver(true)
                    .revokeImmediately(true)).token();
            List<Connection> registered = new ArrayList<>();
            try {
                for (TestDatabase database : List.of(TestDatabase.MARIADB, TestDatabase.MYSQL)) {
                    Connection c = driver(database, t, "fencing.guard=session");
                    registered.add(c);
                    insert(c, "registered", t);                                   // auto-commit
                    c.setAutoCommit(false);
                    insert(c, "registered", t);                                   // the caller's transaction
                    try (Statement s = c.createStatement()) {
                        assertEquals(2, s.executeUpdate("UPDATE " + data + " SET seq = 2 WHERE who = 'registered'"
                                + " AND seq = 1 ORDER BY id LIMIT 2"));
                    }
                    c.commit();
                    c.setAutoCommit(true);
                    try (Statement s = c.createStatement();
                         ResultSet rs = s.executeQuery("SELECT CONNECTION_ID(), @fencing_guard IS NULL")) {
                        rs.next();
                        assertTrue(rs.getBoolean(2), "no statement guard ran: the registration admitted the writes");
                        assertEquals(1, rowCount(epoch + "_session", "conn_id = " + rs.getLong(1) + " AND token = " + t));
                    }
                }
                assertEquals(4, count("who = 'registered' AND token = " + t));
                // a stale record left in the session (an earlier statement guard's) does not refuse the registered session
                try (Statement s = registered.get(0).createStatement()) {
                    s.execute("SET @fencing_guard = '," + resource + " " + earlier + ",'");
                }
                insert(registered.get(0), "registered", t);
                assertEquals(5, count("who = 'registered' AND token = " + t));

                try (Connection plain = DriverManager.getConnection(raw); Statement s = plain.createStatement();
                     Connection admin = DriverManager.getConnection(raw); Statement a = admin.createStatement()) {
                    long id;
                    try (ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
                        rs.next();
                        id = rs.getLong(1);
                    }
                    // a row of an earlier server start naming this session's id (what a restart leaves behind)
                    dev.fencing.sql.MariaDbSessionFenceSql fence = new dev.fencing.sql.MariaDbSessionFenceSql(
                            dev.fencing.sql.EpochTable.resolved(db, "epoch"));
                    a.execute("DROP TRIGGER " + db + ".`" + fence.triggerNames().get(1) + "`");
                    try {
                        a.execute("INSERT INTO " + epoch + "_session VALUES ('" + resource + "', " + id + ", (SELECT "
                                + dev.fencing.sql.MariaDbSessionFenceSql.BOOT + ") - 3600, " + t + ")");
                    } finally {
                        a.execute(fence.create().get(2));
                    }
                    SQLException refused = assertThrows(SQLException.class,
                            () -> s.executeUpdate("INSERT INTO " + data + " (who) VALUES ('unregistered')"));
                    assertEquals(FencingSqlState.INVALID_TOKEN, refused.getSQLState(), refused.getMessage());
                }
                String other = resource + "-other";
                assertEquals(0, cli("declare", other).code);
                long o = issuer.acquire(other, "other", Duration.ofSeconds(60), AcquireOptions.DEFAULT
                        .revokeImmediately(true)).token();
                try (Connection otherSession = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + epoch,
                        "fencing.lease.table=" + lease, "fencing.resource=" + other, "fencing.guard=session"))) {
                    otherSession.unwrap(dev.fencing.jdbc.FencedConnection.class).setFencingToken(o);
                    try (Statement s = otherSession.createStatement()) {
                        s.execute("SELECT 1"); // registers, for the other resource
                        SQLException refused = assertThrows(SQLException.class,
                                () -> s.executeUpdate("INSERT INTO " + data + " (who) VALUES ('other')"));
                        assertEquals(FencingSqlState.INVALID_TOKEN, refused.getSQLState(), refused.getMessage());
                    }
                }
                assertEquals(0, count("who IN ('unregistered', 'other')"));

                long t2 = issuer.acquire(resource, "new", Duration.ofSeconds(60), AcquireOptions.DEFAULT.takeOver(true)
                        .revokeImmediately(true)).token();
                assertEquals(t2, mark());
                assertEquals(0, rowCount(epoch + "_session", "resource = '" + resource + "' AND token < " + t2),
                        "the takeover removed the old registrations");
                for (Connection c : registered) {
                    assertThrows(SQLException.class, () -> insert(c, "late", t), "the hand-over ended the session");
                }
                assertEquals(0, count("who = 'late'"));
            } finally {
                for (Connection c : registered) {
                    try {
                        c.close();
                    } catch (SQLException ended) {
                        // ended by the hand-over
                    }
                }
            }
        }
    }

    /**
     * C2, C4 with real threads (issue 28, open item): two clients outside the driver advance the same resource to one
     * new token at once through the trigger. The procedure first takes the epoch row's shared lock (InnoDB reads it so
     * inside a trigger, whatever the statement says) and needs it exclusively to advance: two transactions that both
     * hold it (here each wrote at the old mark first, then moved to the new token, the widest form of the window) both
     * wait for each other, InnoDB rolls one back (1213) and nothing of it is written. The other advances; the victim,
     * retried, is admitted at the new mark. No other error, and no write without its check.
     */
    @Test
    void concurrentAdvancesThroughTheTriggerDeadlockAtWorstAndARetryIsAdmitted_C2_C4() throws Exception {
        int rounds = 5;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try (TokenIssuer issuer = issuer()) {
            long old = issuer.acquire(resource, "job", Duration.ofSeconds(60), AcquireOptions.DEFAULT
                    .revokeImmediately(true)).token();
            for (int round = 0; round < rounds; round++) {
                long t = issuer.acquire(resource, "job-" + round, Duration.ofSeconds(60), AcquireOptions.DEFAULT
                        .takeOver(true)).token();
                long from = old;
                java.util.concurrent.CyclicBarrier bothHoldTheRow = new java.util.concurrent.CyclicBarrier(2);
                List<java.util.concurrent.Future<Integer>> both = new ArrayList<>();
                for (int w = 0; w < 2; w++) {
                    String who = "r" + round + "-w" + w;
                    both.add(pool.submit(() -> {
                        try (Connection c = client(from); Statement s = c.createStatement()) {
                            c.setAutoCommit(false);
                            insert(c, who + "-old", from);                   // the epoch row, shared
                            bothHoldTheRow.await(30, TimeUnit.SECONDS);
                            s.execute("SET @fencing_token = " + t);
                            try {
                                insert(c, who, t);                          // the advance: exclusive
                                c.commit();
                                return 0;
                            } catch (SQLException e) {
                                c.rollback();
                                assertEquals(1213, e.getErrorCode(), "only a deadlock: " + e);
                                return 1;
                            }
                        }
                    }));
                }
                int victims = 0;
                for (java.util.concurrent.Future<Integer> f : both) {
                    victims += f.get(60, TimeUnit.SECONDS);
                }
                assertEquals(1, victims, "one of the two advances was rolled back as a deadlock");
                assertEquals(t, mark());
                assertEquals(1, count("who LIKE 'r" + round + "-w_' AND token = " + t));
                assertEquals(1, count("who LIKE 'r" + round + "-w_-old'"), "the victim's whole transaction rolled back");
                for (int w = 0; w < 2; w++) {
                    String who = "r" + round + "-w" + w;
                    if (count("who = '" + who + "'") == 0) {
                        try (Connection c = client(t)) {                   // the retry: admitted at the new mark
                            insert(c, who, t);
                        }
                    }
                }
                assertEquals(2, count("who LIKE 'r" + round + "-w_' AND token = " + t));
                old = t;
            }
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
        }
    }

    /** Writes transactions of two rows at {@code token} until refused; returns the refusal's SQLState. */
    private String writeUntilRefused(String who, boolean throughDriver, long token,
                                     java.util.concurrent.atomic.AtomicBoolean stop) throws Exception {
        try (Connection c = throughDriver ? driver(TestDatabase.MARIADB, token) : client(token)) {
            c.setAutoCommit(false);
            for (int n = 0; !stop.get(); n++) {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + data + " (who, token, seq) VALUES (?, ?, ?)")) {
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

    /** A connection outside the driver with the token in the user variables, as the mariadb client sets them. */
    private Connection client(long token) throws SQLException {
        Connection c = DriverManager.getConnection(raw);
        try (Statement s = c.createStatement()) {
            s.execute("SET @fencing_resource = '" + resource + "', @fencing_token = " + token);
        }
        return c;
    }

    private Connection driver(TestDatabase database, long token, String... settings) throws SQLException {
        String url = database == TestDatabase.MYSQL ? "jdbc:mysql:" + raw.substring("jdbc:mariadb:".length()) : raw;
        List<String> all = new ArrayList<>(List.of("fencing.table=" + epoch, "fencing.lease.table=" + lease,
                "fencing.resource=" + resource));
        all.addAll(List.of(settings));
        Connection c = DriverManager.getConnection(TestDatabase.fenced(url, all.toArray(new String[0])));
        c.unwrap(dev.fencing.jdbc.FencedConnection.class).setFencingToken(token);
        return c;
    }

    private void insert(Connection c, String who, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + data + " (who, token, seq) VALUES (?, ?, 1)")) {
            ps.setString(1, who);
            ps.setLong(2, token);
            ps.executeUpdate();
        }
    }

    private TokenIssuer issuer() throws SQLException {
        java.util.Properties info = new java.util.Properties();
        info.setProperty("fencing.table", epoch);
        info.setProperty("fencing.lease.table", lease);
        return TokenIssuer.forUrl(raw, info);
    }

    /** Runs {@code sql} through the mariadb client with the user variables set and checks it was refused with {@code state}. */
    private void assertRefused(String state, String resourceValue, String tokenValue, String sql) throws Exception {
        String set = resourceValue == null ? "" : "SET @fencing_resource = " + resourceValue + ", @fencing_token = "
                + tokenValue + "; ";
        Result refused = mariadb("-e", set + sql);
        assertNotEquals(0, refused.code, "the client fails on the refusal: " + refused.out + refused.err);
        assertTrue(refused.err.contains("(" + state + ")") && refused.err.contains("fencing: "), sql + " with token "
                + tokenValue + ": " + refused.err);
    }

    /** The mariadb client's command line for the test server (host, port, user from its JDBC URL). */
    private String mariadb() {
        return String.join(" ", clientArgs(null));
    }

    private List<String> clientArgs(String user) {
        URI uri = URI.create(TestDatabase.mariadbUrl().substring("jdbc:".length()));
        List<String> args = new ArrayList<>(List.of("mariadb", "--batch", "-h", uri.getHost(), "-P",
                Integer.toString(uri.getPort() < 0 ? 3306 : uri.getPort())));
        String query = uri.getQuery() == null ? "" : uri.getQuery();
        String configured = null;
        String password = null;
        for (String pair : query.split("&")) {
            if (pair.startsWith("user=")) {
                configured = pair.substring(5);
            } else if (pair.startsWith("password=")) {
                password = pair.substring(9);
            }
        }
        args.add("-u" + (user != null ? user : configured != null ? configured : "root"));
        args.add("--database=" + db);
        if (user == null && password != null && !password.isEmpty()) {
            args.add("-p" + password);
        }
        return args;
    }

    private Result mariadb(String... args) throws Exception {
        return mariadbAs(null, args);
    }

    private Result mariadbAs(String user, String... args) throws Exception {
        List<String> command = clientArgs(user);
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("MARIADB_HOME");
        builder.environment().remove("MYSQL_HOME");
        return run(builder);
    }

    /** {@code fencing exec} running the mariadb client on {@code script} unchanged, as a cron job would. */
    private Result mariadbUnderExec(Path script, String... execOptions) throws Exception {
        List<String> args = new ArrayList<>(List.of("exec", "--resource", resource, "--ttl", "10s"));
        args.addAll(List.of(execOptions));
        args.addAll(List.of("--", "sh", "-c", mariadb() + " < \"$0\" >\"$0.out\" 2>&1", script.toString()));
        ProcessBuilder builder = new ProcessBuilder(ExecProcessTest.javaCommand(FencingCli.class.getName(),
                withDb(args.toArray(new String[0]))));
        Result result = run(builder);
        Path out = Path.of(script + ".out");
        return new Result(result.code, Files.exists(out) ? Files.readString(out) : "", result.err);
    }

    private static Result run(ProcessBuilder builder) throws Exception {
        Path out = Files.createTempFile("fencing-mariadb", ".out");
        Path err = Files.createTempFile("fencing-mariadb", ".err");
        try {
            Process p = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            assertTrue(p.waitFor(90, TimeUnit.SECONDS), "finished in time: " + builder.command());
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private String[] withDb(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        int at = all.indexOf("--");
        List<String> dbArgs = List.of("--url", raw, "--epoch-table", epoch, "--lease-table", lease);
        all.addAll(at < 0 ? all.size() : at, dbArgs);
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
        return rowCount(data, where);
    }

    long rowCount(String table, String where) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table + " WHERE " + where)) {
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
