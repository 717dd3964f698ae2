package dev.fencing.jdbc;

/** Savepoints and isolation levels on PostgreSQL, with two connections. */
class PostgresSavepointIsolationTest extends SavepointIsolationTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
