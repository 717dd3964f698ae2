package dev.fencing.jdbc;

/** {@link PassThroughStatesTest} on H2, whose own state for a query string on a prepared statement is 90130. */
class H2PassThroughStatesTest extends PassThroughStatesTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
