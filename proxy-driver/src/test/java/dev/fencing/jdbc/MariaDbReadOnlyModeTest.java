package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** {@link ReadOnlyModeTest} on MariaDB through MariaDB Connector/J (SPEC C10). */
@RequiresMariaDb
class MariaDbReadOnlyModeTest extends ReadOnlyModeTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    String[] writerAndView() {
        return new String[] {"CREATE FUNCTION " + table + "_w() RETURNS INT MODIFIES SQL DATA BEGIN UPDATE " + table
                + " SET v = v + 1 WHERE id = 1; RETURN 1; END",
                "CREATE FUNCTION " + table + "_lift() RETURNS INT BEGIN SET SESSION tx_read_only = 0; RETURN 1; END",
                "CREATE VIEW " + table + "_v AS SELECT " + table + "_w() AS w"};
    }

    @Override
    String[] dropWriterAndView() {
        return new String[] {"DROP VIEW IF EXISTS " + table + "_v", "DROP FUNCTION IF EXISTS " + table + "_w",
                "DROP FUNCTION IF EXISTS " + table + "_lift"};
    }

    @Override
    String[] sessionLifts() {
        return new String[] {"SET SESSION TRANSACTION READ WRITE", "SET @@session.tx_read_only = 0",
                "SET LOCAL TRANSACTION READ WRITE", "SET tx_read_only = DEFAULT", "SET TRANSACTION READ WRITE", "SET completion_type = 1",
                "COMMIT AND CHAIN", "SET STATEMENT tx_read_only = 0 FOR SELECT 1"};
    }

    @Test
    void aStoredFunctionThatLiftsTheModeIsUndoneAfterItsGuardedCall_C10() throws SQLException {
        try (Connection c = owner(MARK); Statement s = c.createStatement()) {
            s.executeQuery("SELECT " + table + "_lift()").close();
            c.unwrap(FencedConnection.class).clearFencingToken();
            assertRefusedUnchanged(c, hiddenWrite());
        }
    }
}
