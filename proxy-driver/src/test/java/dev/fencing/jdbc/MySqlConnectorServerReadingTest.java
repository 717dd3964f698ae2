package dev.fencing.jdbc;

/** The MariaDB reading cases through MySQL Connector/J ({@code jdbc:fencing:mysql:}), on the same server. */
class MySqlConnectorServerReadingTest extends MariaDbServerReadingTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }
}
