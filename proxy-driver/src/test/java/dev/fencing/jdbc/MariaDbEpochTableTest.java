package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC C2 and C9 on MariaDB: the epoch and lease tables compare resource names exactly. With the server's default
 * collation {@code 'HOCASE' = 'hocase'} and {@code 'x' = 'x '}, so two resources would share one mark (one owner's
 * advance would fence the other, and a mark written for {@code 'x '} would be {@code 'x'}'s); the driver creates
 * them with {@code VARBINARY} resource columns on InnoDB, {@code fencing.schema=validate} refuses a table that does
 * not compare exactly, and {@code create} alters it.
 */
@RequiresMariaDb
class MariaDbEpochTableTest {
    private String raw;
    private String epochTable;
    private String leaseTable;
    private String data;

    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @BeforeEach
    void names() throws SQLException {
        raw = database().rawUrl();
        String base = TestDatabase.unique("mex");
        epochTable = base + "_epoch";
        leaseTable = base + "_lease";
        data = base + "_data";
        TestDatabase.exec(raw, "CREATE TABLE " + data + " (id INT PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO " + data + " VALUES (1, 0)");
    }

    @AfterEach
    void drop() throws SQLException {
        TestDatabase.dropNamed(raw, epochTable.substring(0, epochTable.length() - "_epoch".length()));
    }

    private Connection owner(String resource, long token, String... settings) throws SQLException {
        String[] all = new String[settings.length + 5];
        all[0] = "fencing.table=" + epochTable;
        all[1] = "fencing.resource=" + resource;
        all[2] = "fencing.token=" + token;
        all[3] = "fencing.issuer.check=off";
        all[4] = "fencing.resources=any"; // names differing in case or spaces, each its own; declared: ResourceMapTest
        System.arraycopy(settings, 0, all, 5, settings.length);
        return DriverManager.getConnection(TestDatabase.fenced(raw, all));
    }

    private long mark(String resource) throws SQLException {
        try (Connection c = DriverManager.getConnection(raw);
             java.sql.PreparedStatement ps = c.prepareStatement("SELECT epoch FROM " + epochTable
                     + " WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    private void write(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("UPDATE " + data + " SET v = v + 1 WHERE id = 1"));
        }
    }

    @Test
    void resourcesDifferingInCaseOrTrailingSpacesHaveTheirOwnMarks_C2() throws SQLException {
        try (Connection upper = owner("HOCASE", 7, "fencing.schema=create")) {
            write(upper);
        }
        try (Connection lower = owner("hocase", 2)) {
            write(lower);
        }
        assertEquals(7, mark("HOCASE"));
        assertEquals(2, mark("hocase"));
        TestDatabase.exec(raw, "INSERT INTO " + epochTable + " VALUES ('x ', 9)");
        try (Connection x = owner("x", 1)) {
            write(x);
        }
        assertEquals(1, mark("x"), "'x ' is another resource");
        assertEquals(9, mark("x "));
    }

    @Test
    void validateRefusesATableThatComparesResourceNamesByCollationAndCreateAltersIt_C9() throws SQLException {
        TestDatabase.exec(raw, "CREATE TABLE " + epochTable + " (resource VARCHAR(200) NOT NULL PRIMARY KEY,"
                + " epoch BIGINT NOT NULL CHECK (epoch > 0)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
                + " COLLATE=utf8mb4_general_ci");
        SQLException refused = assertThrows(SQLException.class, () -> owner("r", 1).close());
        assertEquals(FencingSqlState.CONFIGURATION, refused.getSQLState());
        assertTrue(refused.getMessage().contains("ignores case or trailing spaces")
                && refused.getMessage().contains("MODIFY resource VARBINARY(200)"), refused.getMessage());
        TestDatabase.exec(raw, "ALTER TABLE " + epochTable + " MODIFY resource VARCHAR(200) CHARACTER SET ascii"
                + " COLLATE ascii_bin NOT NULL");
        assertEquals(FencingSqlState.CONFIGURATION, assertThrows(SQLException.class, () -> owner("r", 1).close())
                .getSQLState(), "a _bin collation still pads: 'x' = 'x '");
        try (Connection created = owner("HOCASE", 3, "fencing.schema=create")) {
            write(created);
        }
        try (Connection validated = owner("hocase", 1)) {
            write(validated);
        }
        assertEquals(3, mark("HOCASE"));
        assertEquals(1, mark("hocase"));
    }

    @Test
    void aNoPadBinaryCollationIsExact_C9() throws SQLException {
        TestDatabase.exec(raw, "CREATE TABLE " + epochTable + " (resource VARCHAR(200) CHARACTER SET utf8mb4 COLLATE"
                + " utf8mb4_nopad_bin NOT NULL PRIMARY KEY, epoch BIGINT NOT NULL CHECK (epoch > 0)) ENGINE=InnoDB");
        try (Connection c = owner("r", 1, "fencing.schema=create")) {
            write(c);
        }
        try (Connection validated = owner("R", 1)) {
            write(validated);
        }
        assertEquals(1, mark("R"));
    }

    @Test
    void validateRefusesAnEpochTableWithoutTransactions_C3() throws SQLException {
        TestDatabase.exec(raw, "CREATE TABLE " + epochTable + " (resource VARBINARY(200) NOT NULL PRIMARY KEY,"
                + " epoch BIGINT NOT NULL CHECK (epoch > 0)) ENGINE=MyISAM");
        SQLException refused = assertThrows(SQLException.class, () -> owner("r", 1).close());
        assertEquals(FencingSqlState.CONFIGURATION, refused.getSQLState());
        assertTrue(refused.getMessage().contains("InnoDB"), refused.getMessage());
    }

    @Test
    void validateRefusesALeaseTableThatComparesByCollation_C7() throws SQLException {
        try (Connection c = owner("r", 1, "fencing.schema=create")) {
            write(c);
        }
        TestDatabase.exec(raw, "CREATE TABLE " + leaseTable + " (resource VARCHAR(200) NOT NULL PRIMARY KEY,"
                + " issued BIGINT NOT NULL, holder VARCHAR(200), acquired_at DATETIME(6), expires_at DATETIME(6))"
                + " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci");
        SQLException refused = assertThrows(SQLException.class, () -> DriverManager.getConnection(TestDatabase.fenced(
                raw, "fencing.table=" + epochTable, "fencing.lease.table=" + leaseTable, "fencing.resource=r",
                "fencing.token=1")).close());
        assertEquals(FencingSqlState.CONFIGURATION, refused.getSQLState());
        assertTrue(refused.getMessage().contains("lease table"), refused.getMessage());
    }
}
