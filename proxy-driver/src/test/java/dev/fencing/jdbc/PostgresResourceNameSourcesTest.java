package dev.fencing.jdbc;

import java.util.List;

/** Crafted resource names on PostgreSQL with {@code standard_conforming_strings = off}: backslashes escape quotes. */
@RequiresPostgres
class PostgresResourceNameSourcesTest extends ResourceNameSourcesTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    List<String> backslashEscapes() {
        return List.of("SET standard_conforming_strings = off");
    }
}
