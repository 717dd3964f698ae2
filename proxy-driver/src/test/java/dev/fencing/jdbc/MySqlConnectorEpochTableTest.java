package dev.fencing.jdbc;

/** The exact comparison of resource names on MariaDB through MySQL Connector/J ({@code jdbc:fencing:mysql:}). */
class MySqlConnectorEpochTableTest extends MariaDbEpochTableTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }
}
