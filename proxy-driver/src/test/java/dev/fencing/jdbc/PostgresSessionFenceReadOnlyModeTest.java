package dev.fencing.jdbc;

/** {@link ReadOnlyModeTest} on PostgreSQL under the session fence: unregistered sessions are read-only (SPEC C10). */
@RequiresPostgres
class PostgresSessionFenceReadOnlyModeTest extends PostgresReadOnlyModeTest {
    @Override
    String[] settings() {
        return new String[] {"fencing.guard=session"};
    }
}
