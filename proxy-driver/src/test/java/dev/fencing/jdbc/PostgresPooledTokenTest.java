package dev.fencing.jdbc;

/** A pooled connection's own token never reaches its next borrower, on PostgreSQL. */
@RequiresPostgres
class PostgresPooledTokenTest extends PooledTokenTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
