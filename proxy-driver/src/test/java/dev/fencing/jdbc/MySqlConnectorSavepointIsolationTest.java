package dev.fencing.jdbc;

/** Savepoints and isolation levels on MariaDB through MySQL Connector/J. */
class MySqlConnectorSavepointIsolationTest extends MariaDbSavepointIsolationTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }
}
