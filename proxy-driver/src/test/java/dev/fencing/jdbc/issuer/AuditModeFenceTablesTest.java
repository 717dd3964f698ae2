package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Audit mode runs what enforce mode refuses, but never a write to the fence's own tables (SPEC C5): the epoch and
 * lease tables are the fence's state for every client of the database, so such writes are refused (ZF005) in
 * every mode. The database is the judge: both tables are read back through a raw connection.
 */
class AuditModeFenceTablesTest {
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void auditModeRefusesWritesToTheEpochAndLeaseTables_C5(TestDatabase database) throws Exception {
        try (IssuerFixture db = new IssuerFixture(database.rawUrl())) {
            String resource = TestDatabase.unique("audited");
            try (TokenIssuer issuer = db.issuer()) {
                Lease lease = issuer.acquire(resource, "owner", Duration.ofSeconds(30));
                db.write(resource, lease.token(), "owner");
            }
            List<String> before = tables(db);
            List<String> writes = new ArrayList<>(List.of(
                    "UPDATE " + db.epoch + " SET epoch = 1000000",
                    "INSERT INTO " + db.epoch + " (resource, epoch) VALUES ('other', 1000000)",
                    "DELETE FROM " + db.epoch,
                    "UPDATE " + db.lease + " SET issued = 1000000, holder = NULL",
                    "DELETE FROM " + db.lease,
                    "INSERT INTO " + db.lease + " (resource, issued) VALUES ('other', 5)"));
            if (database == TestDatabase.POSTGRESQL) {
                // A text the driver cannot guard, which audit mode would otherwise run untouched.
                writes.add("DO $$ BEGIN UPDATE " + db.epoch + " SET epoch = 1000000; END $$");
            }
            try (Connection c = DriverManager.getConnection(db.fenced("fencing.mode=audit", "fencing.audit.file=target/fencing-audit.json",
                    "fencing.resource=" + resource)); Statement s = c.createStatement()) {
                for (String write : writes) {
                    SQLException refused = assertThrows(SQLException.class, () -> s.executeUpdate(write), write);
                    assertEquals(FencingSqlState.PROTECTED, refused.getSQLState(), write + ": " + refused);
                    assertEquals(before, tables(db), "nothing changed after " + write);
                }
                s.executeUpdate("INSERT INTO " + db.data + " (token, seq, writer) VALUES (0, 1, 'audited')");
            }
            assertEquals(1, db.rows(0), "an ordinary tokenless write still runs in audit mode");
        }
    }

    /** Every row of both fence tables, as text. */
    private static List<String> tables(IssuerFixture db) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(db.raw); Statement s = c.createStatement()) {
            for (String sql : List.of("SELECT resource, epoch FROM " + db.epoch + " ORDER BY resource",
                    "SELECT resource, issued, holder FROM " + db.lease + " ORDER BY resource")) {
                try (ResultSet rs = s.executeQuery(sql)) {
                    while (rs.next()) {
                        rows.add(rs.getString(1) + "=" + rs.getString(2)
                                + (rs.getMetaData().getColumnCount() > 2 ? "/" + rs.getString(3) : ""));
                    }
                }
            }
        }
        return rows;
    }
}
