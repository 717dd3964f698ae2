package dev.fencing.jdbc;

/** The MariaDB server-truth findings through MySQL Connector/J ({@code jdbc:fencing:mysql:}), on the same server. */
class MySqlConnectorServerTruthTest extends MariaDbServerTruthTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }
}
