package dev.fencing.jdbc;

/** SPEC C4 on the MariaDB server through MySQL Connector/J. */
class MySqlConnectorConcurrencyTest extends MariaDbConcurrencyTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }
}
