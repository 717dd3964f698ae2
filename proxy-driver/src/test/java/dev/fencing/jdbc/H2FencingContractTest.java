package dev.fencing.jdbc;

/** The fencing contract on embedded H2. */
class H2FencingContractTest extends FencingContractTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Override
    Class<?> vendorConnectionType() {
        return org.h2.jdbc.JdbcConnection.class;
    }

    @Override
    Class<?> vendorStatementType() {
        return org.h2.jdbc.JdbcStatement.class;
    }
}
