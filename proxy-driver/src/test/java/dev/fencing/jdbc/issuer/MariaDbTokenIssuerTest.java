package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.RequiresMariaDb;
import dev.fencing.jdbc.TestDatabase;

/** The token issuer on the MariaDB server (MariaDB Connector/J). */
@RequiresMariaDb
class MariaDbTokenIssuerTest extends TokenIssuerTest {
    @Override
    String rawUrl() {
        return TestDatabase.MARIADB.rawUrl();
    }
}
