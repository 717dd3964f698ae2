package dev.fencing.jdbc;

/** {@link ResourceMapTest} on MYSQL. */
@RequiresMariaDb
class MySqlConnectorResourceMapTest extends ResourceMapTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }
}
