package dev.fencing.jdbc;

/** {@link ResourceMapTest} on MARIADB. */
@RequiresMariaDb
class MariaDbResourceMapTest extends ResourceMapTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
