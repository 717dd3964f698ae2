package dev.fencing.jdbc;

/** A pooled connection's own token never reaches its next borrower, on H2. */
class H2PooledTokenTest extends PooledTokenTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
