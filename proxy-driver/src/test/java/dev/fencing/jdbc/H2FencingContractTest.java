package dev.fencing.jdbc;

/** The fencing contract on embedded H2. */
class H2FencingContractTest extends FencingContractTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
