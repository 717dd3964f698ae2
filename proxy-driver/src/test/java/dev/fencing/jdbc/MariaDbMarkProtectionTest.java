package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The database's own protection of the marks on MariaDB (two BEFORE triggers), against the MySQL family's own ways
 * to write a table. MariaDB's {@code TRUNCATE} fires no trigger and cannot be refused by one: a limit (revoke
 * {@code DROP} on the table), while the driver itself refuses it ({@code ZF005}, the bypass suite).
 */
@RequiresMariaDb
class MariaDbMarkProtectionTest extends MarkProtectionTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    List<String> databaseAttacks() {
        return List.of(
                "INSERT INTO {E} (resource, epoch) VALUES ('{R}', 1) ON DUPLICATE KEY UPDATE epoch = 1",
                "REPLACE INTO {E} (resource, epoch) VALUES ('{R}', 1)",
                "UPDATE {E} e JOIN (SELECT 1 AS one) o SET e.epoch = 1",
                "DELETE e FROM {E} e WHERE e.resource = '{R}'",
                "UPDATE {E} SET resource = CAST(UPPER(CONVERT(resource USING utf8mb4)) AS BINARY) WHERE resource = '{R}'",
                "UPDATE {E} SET resource = CONCAT(resource, ' ') WHERE resource = '{R}'",
                "SET STATEMENT sql_mode = '' FOR DELETE FROM {E}");
    }

    @Override
    String truncateState() {
        return null;
    }

    @Override
    String resourceType() {
        return "VARBINARY(200)";
    }

    @Test
    void validateRefusesADroppedTrigger_C9() throws Exception {
        String validate = TestDatabase.fenced(raw, "fencing.table=" + epoch);
        DriverManager.getConnection(validate).close();
        TestDatabase.exec(raw, "DROP TRIGGER fencing_del_" + epoch);
        assertEquals(FencingSqlState.CONFIGURATION,
                assertThrows(SQLException.class, () -> DriverManager.getConnection(validate)).getSQLState());
        DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.table=" + epoch, "fencing.schema=create")).close();
        DriverManager.getConnection(validate).close();
        assertEquals(FencingSqlState.PROTECTED, rawFailure(sql("DELETE FROM {E}")).getSQLState());
        assertEquals(MARK, mark());
    }
}
