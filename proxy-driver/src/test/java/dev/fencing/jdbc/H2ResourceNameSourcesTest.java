package dev.fencing.jdbc;

import java.util.List;

/** Crafted resource names on H2, which reads no backslash escapes. */
class H2ResourceNameSourcesTest extends ResourceNameSourcesTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Override
    List<String> backslashEscapes() {
        return List.of();
    }
}
