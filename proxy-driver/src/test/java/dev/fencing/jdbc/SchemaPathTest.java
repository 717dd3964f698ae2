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
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC C9 and C7: the epoch and lease tables are resolved once at connect to qualified names, so a session that
 * later moves its schema or search path to a decoy schema holding tables of the same names is still fenced by the
 * real ones: a stale token and a never-issued token are refused, judged by raw reads of the real and decoy rows.
 * Run on each database by a subclass.
 */
abstract class SchemaPathTest {
    static final long MARK = 5;
    static final long NEVER_ISSUED = 1_000_000;

    /** One way a session can move where unqualified names resolve. */
    interface Move {
        void apply(Connection c) throws SQLException;
    }

    /** A move and its name. */
    record NamedMove(String name, Move move) {
    }

    String raw;
    String epoch;
    String lease;
    String data;
    String decoy;
    String resource;

    abstract TestDatabase database();

    /** The schema the real tables are created in (the session's default). */
    abstract String home();

    /** The ways this database lets a session move to {@link #decoy} after connect. */
    abstract List<NamedMove> moves();

    @BeforeEach
    void createTables() throws SQLException {
        raw = database().rawUrl();
        epoch = TestDatabase.unique("epoch");
        lease = TestDatabase.unique("lease");
        data = TestDatabase.unique("data");
        decoy = TestDatabase.unique("decoy");
        resource = TestDatabase.unique("res");
        try (Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.table=" + epoch, "fencing.issuer.check=off"))) {
            c.isValid(1);
        }
        String columns = "(resource VARCHAR(200) NOT NULL PRIMARY KEY, epoch BIGINT NOT NULL)";
        String leaseColumns = "(resource VARCHAR(200) NOT NULL PRIMARY KEY, issued BIGINT NOT NULL, holder VARCHAR(200),"
                + " acquired_at TIMESTAMP WITH TIME ZONE, expires_at TIMESTAMP WITH TIME ZONE)";
        TestDatabase.exec(raw,
                "CREATE TABLE " + lease + " " + leaseColumns,
                "CREATE TABLE " + data + " (id INT PRIMARY KEY, v BIGINT NOT NULL)",
                "INSERT INTO " + data + " VALUES (1, 0)",
                "INSERT INTO " + epoch + " VALUES ('" + resource + "', " + MARK + ")",
                "INSERT INTO " + lease + " (resource, issued) VALUES ('" + resource + "', " + MARK + ")",
                "CREATE SCHEMA " + decoy,
                // the decoy: a low mark, and a lease table where the resource is not under the issuer
                "CREATE TABLE " + decoy + "." + epoch + " " + columns,
                "INSERT INTO " + decoy + "." + epoch + " VALUES ('" + resource + "', 1)",
                "CREATE TABLE " + decoy + "." + lease + " " + leaseColumns,
                "CREATE TABLE " + decoy + "." + data + " (id INT PRIMARY KEY, v BIGINT NOT NULL)");
    }

    @AfterEach
    void dropTables() throws SQLException {
        TestDatabase.exec(raw, "DROP SCHEMA " + decoy + " CASCADE", "DROP TABLE " + data, "DROP TABLE " + lease,
                "DROP TABLE " + epoch);
    }

    Connection fenced(long token, String... settings) throws SQLException {
        List<String> all = new ArrayList<>(List.of("fencing.table=" + epoch, "fencing.resource=" + resource,
                "fencing.token=" + token));
        if (java.util.Arrays.stream(settings).noneMatch(s -> s.startsWith("fencing.lease.table="))) {
            all.add("fencing.lease.table=" + lease); // each setting once: a second one is a configuration error
        }
        all.addAll(List.of(settings));
        return DriverManager.getConnection(TestDatabase.fenced(raw, all.toArray(new String[0])));
    }

    long read(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw);
             PreparedStatement ps = c.prepareStatement(sql)) {
            if (sql.contains("?")) {
                ps.setString(1, resource);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    long realMark() throws SQLException {
        return read("SELECT epoch FROM " + home() + "." + epoch + " WHERE resource = ?");
    }

    long decoyMark() throws SQLException {
        return read("SELECT epoch FROM " + decoy + "." + epoch + " WHERE resource = ?");
    }

    long value() throws SQLException {
        return read("SELECT v FROM " + home() + "." + data + " WHERE id = 1");
    }

    /** Tries to write the real data table (named qualified) with {@code token} after {@code move}. */
    FencingRefusedException refusedAfter(NamedMove move, long token, String... settings) throws SQLException {
        try (Connection c = fenced(token, settings)) {
            if (move != null) {
                move.move().apply(c);
            }
            try (Statement s = c.createStatement()) {
                return assertThrows(FencingRefusedException.class,
                        () -> s.executeUpdate("UPDATE " + home() + "." + data + " SET v = " + token),
                        move == null ? "no move" : move.name());
            }
        }
    }

    void assertNothingChanged(String what) throws SQLException {
        assertEquals(MARK, realMark(), what);
        assertEquals(1, decoyMark(), what);
        assertEquals(0, value(), what);
    }

    @Test
    void staleTokenIsRefusedAfterTheSessionMovesToADecoySchema_C9() throws Exception {
        for (NamedMove move : moves()) {
            FencingRefusedException e = refusedAfter(move, 3);
            assertEquals(FencingSqlState.STALE_TOKEN, e.getSQLState(), move.name() + ": " + e.getMessage());
            assertNothingChanged(move.name());
        }
        // the current token still writes after a move, and the mark it checks is the real one
        try (Connection c = fenced(MARK)) {
            moves().get(0).move().apply(c);
            assertEquals(1, c.createStatement().executeUpdate("UPDATE " + home() + "." + data + " SET v = 5"));
        }
        assertEquals(5, value());
        assertEquals(MARK, realMark());
        assertEquals(1, decoyMark());
    }

    @Test
    void neverIssuedTokenIsRefusedAfterTheSessionMovesToADecoyLeaseTable_C7() throws Exception {
        for (NamedMove move : moves()) {
            FencingRefusedException e = refusedAfter(move, NEVER_ISSUED);
            assertEquals(FencingSqlState.TOKEN_NOT_ISSUED, e.getSQLState(), move.name() + ": " + e.getMessage());
            assertNothingChanged(move.name());
        }
    }

    /**
     * Settings of the underlying driver's URL that start the session in the schema {@code empty} (created unquoted),
     * with the tables' own schema after it on the search path.
     */
    abstract String[] urlSchema(String empty);

    @Test
    void aUrlSchemaWithoutTheTablesStillFindsThemThroughTheSearchPath_C7() throws Exception {
        String empty = TestDatabase.unique("empty");
        TestDatabase.exec(raw, "CREATE SCHEMA " + empty);
        try {
            FencingRefusedException e = refusedAfter(null, NEVER_ISSUED, urlSchema(empty));
            assertEquals(FencingSqlState.TOKEN_NOT_ISSUED, e.getSQLState(), e.getMessage());
            assertNothingChanged("URL schema");
        } finally {
            TestDatabase.exec(raw, "DROP SCHEMA " + empty);
        }
    }

    @Test
    void aConfiguredLeaseTableThatDoesNotExistIsAnError_C7() throws Exception {
        SQLException e = assertThrows(SQLException.class, () -> fenced(MARK, "fencing.lease.table=" + lease + "_typo"));
        assertEquals(FencingSqlState.CONFIGURATION, e.getSQLState());
        assertTrue(e.getMessage().contains("fencing.lease.table") && e.getMessage().contains(lease + "_typo"),
                e.getMessage());
        fenced(MARK, "fencing.lease.table=" + lease + "_typo", "fencing.issuer.check=off").close();
    }
}
