package dev.fencing.jdbc;

/** {@link ResourceMapTest} on MariaDB under the session fence ({@code fencing.guard=session}). */
@RequiresMariaDb
class MariaDbSessionFenceResourceMapTest extends ResourceMapTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    String guard() {
        return "session";
    }
}
