package dev.fencing.jdbc;

import dev.fencing.jdbc.cli.FencingCli;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC C9: the database itself refuses lowering, deleting, truncating or renaming a high-water mark, whatever
 * client writes the epoch table; the guard's and the issuer's raises still work; validate refuses a table without
 * that protection. The judge is a raw connection; run on each database by a subclass.
 */
abstract class MarkProtectionTest {
    static final long MARK = 5;

    String raw;
    String epoch;
    String resource;
    String data;

    abstract TestDatabase database();

    /** Statements that would lower, delete or rename the mark, beyond the common ones (text: {E} table, {R} resource). */
    abstract List<String> databaseAttacks();

    /**
     * The SQLState the database raises for {@code TRUNCATE} of the protected table; {@code null} where it cannot
     * refuse it (MariaDB's {@code TRUNCATE} fires no trigger: revoke {@code DROP} there).
     */
    abstract String truncateState();

    /** The type of the {@code resource} column of an epoch table the database compares exactly. */
    String resourceType() {
        return "VARCHAR(200)";
    }

    @BeforeEach
    void createTables() throws SQLException {
        raw = database().rawUrl();
        epoch = TestDatabase.unique("epoch");
        resource = TestDatabase.unique("res");
        data = TestDatabase.unique("data");
        TestDatabase.exec(raw, "CREATE TABLE " + data + " (id INT PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO " + data + " VALUES (1, 0)");
        try (Connection c = fenced("fencing.schema=create", "fencing.token=" + MARK)) {
            c.createStatement().executeUpdate("UPDATE " + data + " SET v = 1");
        }
        assertEquals(MARK, mark());
    }

    @AfterEach
    void dropTables() throws SQLException {
        TestDatabase.exec(raw, "DROP TABLE IF EXISTS " + data, "DROP VIEW IF EXISTS " + epoch + "_v",
                "DROP TABLE IF EXISTS " + epoch);
    }

    Connection fenced(String... settings) throws SQLException {
        List<String> all = new ArrayList<>(List.of("fencing.table=" + epoch, "fencing.resource=" + resource));
        all.addAll(List.of(settings));
        return DriverManager.getConnection(TestDatabase.fenced(raw, all.toArray(new String[0])));
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

    String sql(String template) {
        return template.replace("{E}", epoch).replace("{R}", resource);
    }

    /** Runs {@code sql} on a raw connection (autocommit) and returns its error, failing when it succeeds. */
    SQLException rawFailure(String sql) {
        return assertThrows(SQLException.class, () -> TestDatabase.exec(raw, sql), sql);
    }

    @Test
    void rawConnectionCannotLowerDeleteRenameOrTruncateAMark_C9() throws Exception {
        List<String> attacks = new ArrayList<>(List.of(
                "UPDATE {E} SET epoch = 4 WHERE resource = '{R}'",
                "UPDATE {E} SET epoch = epoch - 1",
                "UPDATE {E} SET resource = 'elsewhere' WHERE resource = '{R}'",
                "DELETE FROM {E} WHERE resource = '{R}'",
                "DELETE FROM {E}"));
        attacks.addAll(databaseAttacks());
        for (String attack : attacks) {
            SQLException e = rawFailure(sql(attack));
            assertEquals(FencingSqlState.PROTECTED, e.getSQLState(), attack + ": " + e.getMessage());
            assertEquals(MARK, mark(), attack);
        }
        if (truncateState() != null) {
            SQLException truncate = rawFailure(sql("TRUNCATE TABLE {E}"));
            assertEquals(truncateState(), truncate.getSQLState(), truncate.getMessage());
            assertEquals(MARK, mark());
        }
        // in a transaction of the attacker's own, the refusal is the same and the mark stays
        try (Connection c = DriverManager.getConnection(raw)) {
            c.setAutoCommit(false);
            assertThrows(SQLException.class, () -> c.createStatement().executeUpdate(sql("DELETE FROM {E}")));
            c.rollback();
        }
        assertEquals(MARK, mark());
    }

    @Test
    void raisingAMarkStillWorksAndTheGuardKeepsAdvancing_C9() throws Exception {
        TestDatabase.exec(raw, sql("UPDATE {E} SET epoch = epoch WHERE resource = '{R}'"),
                sql("UPDATE {E} SET epoch = 7 WHERE resource = '{R}'"));
        assertEquals(7, mark());
        try (Connection c = fenced("fencing.token=9")) {
            assertEquals(1, c.createStatement().executeUpdate("UPDATE " + data + " SET v = 9"));
        }
        assertEquals(9, mark());
        try (Connection c = fenced("fencing.token=8")) {
            FencingRefusedException stale = assertThrows(FencingRefusedException.class,
                    () -> c.createStatement().executeUpdate("UPDATE " + data + " SET v = 8"));
            assertEquals(FencingSqlState.STALE_TOKEN, stale.getSQLState());
        }
        assertEquals(9, mark());
    }

    @Test
    void validateRefusesAnEpochTableWithoutTheProtectionAndCreateAddsIt_C9() throws Exception {
        String bare = TestDatabase.unique("bare");
        TestDatabase.exec(raw, "CREATE TABLE " + bare
                + " (resource " + resourceType() + " NOT NULL PRIMARY KEY, epoch BIGINT NOT NULL CHECK (epoch > 0))",
                "INSERT INTO " + bare + " VALUES ('" + resource + "', 3)");
        try {
            String validate = TestDatabase.fenced(raw, "fencing.table=" + bare);
            SQLException refused = assertThrows(SQLException.class, () -> DriverManager.getConnection(validate));
            assertEquals(FencingSqlState.CONFIGURATION, refused.getSQLState());
            assertTrue(refused.getMessage().contains("protection") && refused.getMessage().contains(" TRIGGER ")
                    && refused.getMessage().contains("fencing.schema=create"), refused.getMessage());
            // the unprotected table really can be lowered: the refusal above is about something real
            TestDatabase.exec(raw, "UPDATE " + bare + " SET epoch = 2");
            DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + bare, "fencing.schema=create"))
                    .close();
            DriverManager.getConnection(validate).close();
            SQLException lowered = rawFailure("UPDATE " + bare + " SET epoch = 1");
            assertEquals(FencingSqlState.PROTECTED, lowered.getSQLState());
        } finally {
            TestDatabase.exec(raw, "DROP TABLE " + bare);
        }
    }

    @Test
    void fencingInitCreatesTheProtection_C9() throws Exception {
        String initEpoch = TestDatabase.unique("epoch");
        String initLease = TestDatabase.unique("lease");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        try {
            int code = FencingCli.run(new PrintWriter(out, true), new PrintWriter(err, true),
                    "init", "--url", raw, "--epoch-table", initEpoch, "--lease-table", initLease);
            assertEquals(0, code, out + " " + err);
            DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + initEpoch,
                    "fencing.lease.table=" + initLease)).close();
            TestDatabase.exec(raw, "INSERT INTO " + initEpoch + " VALUES ('" + resource + "', 4)");
            assertEquals(FencingSqlState.PROTECTED, rawFailure("DELETE FROM " + initEpoch).getSQLState());
            assertEquals(FencingSqlState.PROTECTED,
                    rawFailure("UPDATE " + initEpoch + " SET epoch = 3").getSQLState());
            // idempotent: a second init over the protected tables changes nothing and succeeds
            assertEquals(0, FencingCli.run(new PrintWriter(out, true), new PrintWriter(err, true),
                    "init", "--url", raw, "--epoch-table", initEpoch, "--lease-table", initLease), out + " " + err);
        } finally {
            TestDatabase.exec(raw, "DROP TABLE IF EXISTS " + initLease, "DROP TABLE IF EXISTS " + initEpoch);
        }
    }

    /** The number of rows in the epoch table, read raw. */
    int epochRows() throws SQLException {
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + epoch)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
