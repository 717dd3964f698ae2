package dev.fencing.jdbc;

/** {@link MariaDbSessionFenceTest} through MySQL Connector/J against the same MariaDB server. */
@RequiresMariaDb
class MySqlConnectorSessionFenceTest extends MariaDbSessionFenceTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }
}
