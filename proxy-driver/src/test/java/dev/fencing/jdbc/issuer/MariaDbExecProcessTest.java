package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.RequiresMariaDb;
import dev.fencing.jdbc.TestDatabase;

import java.nio.file.Path;

/** {@code fencing exec} on the MariaDB server (MariaDB Connector/J). */
@RequiresMariaDb
class MariaDbExecProcessTest extends ExecProcessTest {
    @Override
    String rawUrl(Path dir) {
        return TestDatabase.MARIADB.rawUrl();
    }
}
