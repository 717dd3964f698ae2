package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.RequiresPostgres;
import dev.fencing.jdbc.TestDatabase;

import java.nio.file.Path;

/** {@code fencing exec} on the real PostgreSQL server. */
@RequiresPostgres
class PostgresExecProcessTest extends ExecProcessTest {
    @Override
    String rawUrl(Path dir) {
        return TestDatabase.POSTGRESQL.rawUrl();
    }
}
