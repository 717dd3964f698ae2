package dev.fencing.jdbc;

/** {@link ResourceMapTest} on POSTGRESQL. */
@RequiresPostgres
class PostgresResourceMapTest extends ResourceMapTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
