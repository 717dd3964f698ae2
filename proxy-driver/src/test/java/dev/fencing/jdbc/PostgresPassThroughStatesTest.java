package dev.fencing.jdbc;

/** {@link PassThroughStatesTest} on PostgreSQL, where pgjdbc says 42809. */
@RequiresPostgres
class PostgresPassThroughStatesTest extends PassThroughStatesTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
