package dev.fencing.jdbc;

/** {@link WrapperCoverageTest} on H2. */
class H2WrapperCoverageTest extends WrapperCoverageTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Override
    String arrayCall() {
        return "{? = CALL ARRAY[1, 2]}";
    }

    @Override
    String arrayType() {
        return "INTEGER ARRAY";
    }
}
