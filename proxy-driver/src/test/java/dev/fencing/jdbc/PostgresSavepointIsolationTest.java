package dev.fencing.jdbc;

/** Savepoints and isolation levels on PostgreSQL, with two connections. */
@RequiresPostgres
class PostgresSavepointIsolationTest extends SavepointIsolationTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
