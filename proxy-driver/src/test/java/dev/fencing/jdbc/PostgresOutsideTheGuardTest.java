package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * SPEC C10 on PostgreSQL: work that runs outside the statement the guard covers. Maintenance commands run user code
 * (index expressions), so they need a current token; those PostgreSQL runs only outside a transaction block
 * ({@code VACUUM}, {@code ALTER SYSTEM}) work with one; programs ({@code COPY ... PROGRAM}) and other sessions opened
 * from SQL ({@code dblink}, {@code pg_background}) are refused whatever the token. The judge is a raw connection.
 */
@RequiresPostgres
class PostgresOutsideTheGuardTest {
    private static final long MARK = 7;

    private String raw;
    private String table;
    /** Rows the writing function inserts: whatever adds one here ran user code that writes. */
    private String writes;
    private String resource;
    private Connection judge;

    @BeforeEach
    void createData() throws SQLException {
        raw = TestDatabase.POSTGRESQL.rawUrl();
        table = TestDatabase.unique("outside");
        writes = table + "_writes";
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id int PRIMARY KEY, balance int NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100), (2, 200)",
                "CREATE TABLE " + writes + " (n int)",
                // maintenance runs index expressions with a restricted search path: every name qualified
                "CREATE FUNCTION " + table + "_w() RETURNS int LANGUAGE plpgsql AS $$BEGIN INSERT INTO public."
                        + writes + " VALUES (1); RETURN 1; END$$",
                "CREATE FUNCTION " + table + "_imm(int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$BEGIN PERFORM"
                        + " public." + table + "_w(); RETURN $1; END$$",
                "CREATE INDEX " + table + "_expr ON " + table + " ((public." + table + "_imm(id)))",
                "CREATE MATERIALIZED VIEW " + table + "_mv AS SELECT public." + table + "_imm(id) FROM " + table);
        judge = DriverManager.getConnection(raw);
        try (Connection c = connect(MARK); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET balance = balance WHERE id = 1");
        }
    }

    @AfterEach
    void dropData() throws SQLException {
        judge.close();
        TestDatabase.dropNamed(raw, table);
    }

    private Connection connect(long token) throws SQLException {
        return token == 0
                ? DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                        "fencing.resource=" + resource))
                : DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                        "fencing.resource=" + resource, "fencing.token=" + token));
    }

    private long count(String sql) throws SQLException {
        try (Statement s = judge.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private String snapshot() throws SQLException {
        return count("SELECT count(*) FROM " + writes) + " writes, balance " + count("SELECT sum(balance) FROM "
                + table) + ", epoch " + count("SELECT max(epoch) FROM fencing_epoch WHERE resource = '" + resource
                + "'");
    }

    @Test
    void maintenanceThatRunsIndexExpressionsNeedsACurrentToken_C10() throws Exception {
        for (String sql : List.of("REINDEX TABLE " + table, "REINDEX INDEX " + table + "_expr",
                "CLUSTER " + table + " USING " + table + "_pkey", "VACUUM (ANALYZE) " + table,
                "VACUUM FULL " + table, "vacuum analyze " + table, "ANALYZE " + table,
                "REFRESH MATERIALIZED VIEW " + table + "_mv")) {
            for (long token : new long[] {0, MARK - 1}) {
                String before = snapshot();
                try (Connection c = connect(token); Statement s = c.createStatement()) {
                    SQLException refused = assertThrows(SQLException.class, () -> s.execute(sql),
                            () -> sql + " ran user code with token " + token);
                    assertEquals(token == 0 ? FencingSqlState.INVALID_TOKEN : FencingSqlState.STALE_TOKEN,
                            refused.getSQLState(), () -> sql + ": " + refused);
                }
                assertEquals(before, snapshot(), () -> sql + " with token " + token);
            }
            long written = count("SELECT count(*) FROM " + writes);
            if (sql.toUpperCase(java.util.Locale.ROOT).startsWith("VACUUM")) {
                // VACUUM runs outside any transaction, in transactions of its own that no guard can admit: with the
                // current token it runs, but what its index expressions write is refused as read-only (SPEC C10).
                try (Connection c = connect(MARK); Statement s = c.createStatement()) {
                    SQLException refused = assertThrows(SQLException.class, () -> s.execute(sql), sql);
                    assertEquals(FencingSqlState.INVALID_TOKEN, refused.getSQLState(), () -> sql + ": " + refused);
                }
                assertEquals(written, count("SELECT count(*) FROM " + writes), sql);
                continue;
            }
            try (Connection c = connect(MARK); Statement s = c.createStatement()) {
                s.execute(sql);
            }
            org.junit.jupiter.api.Assertions.assertTrue(count("SELECT count(*) FROM " + writes) > written,
                    () -> sql + " with the current token ran, and its index expression wrote");
        }
    }

    @Test
    void alterSystemWorksWithACurrentTokenOnly_C10() throws Exception {
        // PostgreSQL 15 takes no custom name here: an obscure setting, written at its default value, so that nothing
        // changes for anyone even if the server reloaded its files meanwhile; the judge reads the file itself.
        String setting = "cursor_tuple_fraction";
        String file = "SELECT count(*) FROM pg_file_settings WHERE name = '" + setting + "'";
        org.junit.jupiter.api.Assumptions.assumeTrue(count(file) == 0, setting + " is set in a file already");
        String set = "ALTER SYSTEM SET " + setting + " = 0.1";
        try {
            for (long token : new long[] {0, MARK - 1}) {
                try (Connection c = connect(token); Statement s = c.createStatement()) {
                    SQLException refused = assertThrows(SQLException.class, () -> s.execute(set));
                    assertEquals(token == 0 ? FencingSqlState.INVALID_TOKEN : FencingSqlState.STALE_TOKEN,
                            refused.getSQLState(), refused::toString);
                }
                assertEquals(0, count(file));
            }
            try (Connection c = connect(MARK); Statement s = c.createStatement()) {
                s.execute(set);
                assertEquals(1, count(file), "ALTER SYSTEM with the current token wrote postgresql.auto.conf");
                c.prepareStatement("ALTER SYSTEM RESET " + setting).execute();
            }
            assertEquals(0, count(file), "a prepared ALTER SYSTEM with the current token ran too");
        } finally {
            TestDatabase.exec(raw, "ALTER SYSTEM RESET " + setting);
        }
    }

    @Test
    void copyWithAProgramIsRefusedWhateverTheToken_C10() throws Exception {
        String before = snapshot();
        for (String sql : List.of("COPY " + table + " FROM PROGRAM 'echo 9,900' WITH (FORMAT csv)",
                "copy " + table + " (id, balance) from program 'echo 9,900' (format csv)",
                "COPY " + table + " TO PROGRAM 'cat > /dev/null'",
                "COPY (SELECT * FROM " + table + ") TO PROGRAM 'cat > /dev/null'")) {
            for (long token : new long[] {0, MARK}) {
                try (Connection c = connect(token); Statement s = c.createStatement()) {
                    SQLException refused = assertThrows(SQLException.class, () -> s.execute(sql), sql);
                    assertEquals(FencingSqlState.CANNOT_GUARD, refused.getSQLState(), () -> sql + ": " + refused);
                }
            }
        }
        assertEquals(before, snapshot());
    }

    @Test
    void functionsThatOpenAnotherSessionAreRefusedWhateverTheToken_C10() throws Exception {
        // dblink lives in a database of the test's own: an extension is one per database, and others may use it.
        String database = table + "_db";
        TestDatabase.exec(raw, "CREATE DATABASE " + database);
        String ownRaw = raw.replaceFirst("/[^/?]+(\\?|$)", "/" + database + "$1");
        try {
            TestDatabase.exec(ownRaw, "CREATE SCHEMA " + table + "_ext",
                    "CREATE EXTENSION dblink SCHEMA " + table + "_ext",
                    "CREATE TABLE " + table + " (id int PRIMARY KEY, balance int NOT NULL)",
                    "INSERT INTO " + table + " VALUES (1, 100)",
                    // pg_background is not installed here: a function of its name stands in for it
                    "CREATE FUNCTION pg_background_launch(sql text, queue_size int DEFAULT 65536) RETURNS int"
                            + " LANGUAGE plpgsql AS $$BEGIN EXECUTE sql; RETURN 1; END$$");
            String other = "'dbname=" + database + " host=127.0.0.1 user=postgres'";
            String update = "'UPDATE " + table + " SET balance = 0'";
            String ext = table + "_ext.";
            List<String> calls = List.of("SELECT " + ext + "dblink_exec(" + other + ", " + update + ")",
                    "SELECT " + ext + "dblink_connect('c', " + other + ")",
                    "SELECT " + ext + "dblink_connect('c', " + other + "); SELECT " + ext + "dblink_send_query('c', "
                            + update + ")",
                    "SELECT * FROM " + ext + "dblink(" + other + ", 'UPDATE " + table
                            + " SET balance = 0 RETURNING 1') AS t(x int)",
                    "SELECT pg_background_launch(" + update + ")");
            try (Connection c = DriverManager.getConnection(TestDatabase.fenced(ownRaw, "fencing.schema=create",
                    "fencing.resource=" + resource, "fencing.token=" + MARK)); Statement s = c.createStatement()) {
                s.execute("SET search_path = public, " + table + "_ext");
                s.executeUpdate("UPDATE " + table + " SET balance = balance");
                for (String sql : calls) {
                    SQLException refused = assertThrows(SQLException.class, () -> s.execute(sql), sql);
                    assertEquals(FencingSqlState.CANNOT_GUARD, refused.getSQLState(), () -> sql + ": " + refused);
                }
                SQLException unqualified = assertThrows(SQLException.class, () -> s.execute(
                        "SELECT dblink_exec(" + other + ", " + update + ")"));
                assertEquals(FencingSqlState.CANNOT_GUARD, unqualified.getSQLState(), unqualified::toString);
            }
            try (Connection c = DriverManager.getConnection(ownRaw); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT balance FROM " + table)) {
                rs.next();
                assertEquals(100, rs.getInt(1), "no other session changed the row");
            }
        } finally {
            try (Connection c = DriverManager.getConnection(raw); PreparedStatement ps = c.prepareStatement(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ?")) {
                ps.setString(1, database);
                ps.executeQuery().close();
            }
            TestDatabase.exec(raw, "DROP DATABASE IF EXISTS " + database);
        }
    }
}
