package dev.fencing.jdbc;

/** {@link WrapperCoverageTest} on PostgreSQL, whose arrays hand out result sets of their own (pgjdbc's PgArray). */
@RequiresPostgres
class PostgresWrapperCoverageTest extends WrapperCoverageTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    String arrayCall() {
        return "{? = call string_to_array('1,2', ',')}";
    }

    @Override
    String arrayType() {
        return "INT[]";
    }
}
