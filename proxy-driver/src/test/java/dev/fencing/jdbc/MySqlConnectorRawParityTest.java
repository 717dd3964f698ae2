package dev.fencing.jdbc;

/** {@link MariaDbRawParityTest} on the MariaDB server through MySQL Connector/J. */
@RequiresMariaDb
class MySqlConnectorRawParityTest extends MariaDbRawParityTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }
}
