package dev.fencing.jdbc;

/** {@link MariaDbUnreadableTextTest} on the MariaDB server through MySQL Connector/J. */
@RequiresMariaDb
class MySqlConnectorUnreadableTextTest extends MariaDbUnreadableTextTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }
}
