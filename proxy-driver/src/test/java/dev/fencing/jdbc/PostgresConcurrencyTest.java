package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** SPEC C4 on the real PostgreSQL server with real threads and overlapping transactions. */
@RequiresPostgres
class PostgresConcurrencyTest extends ConcurrencyTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    void createTable() throws SQLException {
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO " + table + " SELECT g, 0 FROM generate_series(1, 8) g");
    }

    @Override
    String sleep() {
        return "SELECT pg_sleep(0.2)";
    }

    @Test
    void aConnectWhoseEpochTableCheckIsCutByALockTimeoutReportsTheDatabasesErrorNotAMissingTable() throws Exception {
        String epochs = TestDatabase.unique("epoch");
        TestDatabase.exec(raw, "CREATE TABLE " + epochs + " (resource VARCHAR(200) PRIMARY KEY, epoch BIGINT NOT NULL)");
        try (Connection locker = DriverManager.getConnection(raw); Statement s = locker.createStatement()) {
            locker.setAutoCommit(false);
            s.execute("LOCK TABLE " + epochs + " IN ACCESS EXCLUSIVE MODE");
            SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(TestDatabase.fenced(raw,
                    "fencing.table=" + epochs, "options=-c%20lock_timeout%3D200")).close());
            assertEquals("55P03", e.getSQLState(), "the lock timeout itself, not a configuration error: " + e);
            locker.rollback();
        } finally {
            TestDatabase.exec(raw, "DROP TABLE " + epochs);
        }
    }
}
