package dev.fencing.jdbc;

/** {@link ResourceMapTest} on H2. */
class H2ResourceMapTest extends ResourceMapTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
