package dev.fencing.jdbc;

/** {@link ReadOnlyModeTest} on the MariaDB server through MySQL Connector/J (SPEC C10). */
@RequiresMariaDb
class MySqlConnectorReadOnlyModeTest extends MariaDbReadOnlyModeTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }
}
