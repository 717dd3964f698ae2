package dev.fencing.jdbc;

/** {@link ResourceMapTest} on PostgreSQL under the session fence ({@code fencing.guard=session}). */
@RequiresPostgres
class PostgresSessionFenceResourceMapTest extends ResourceMapTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    String guard() {
        return "session";
    }
}
