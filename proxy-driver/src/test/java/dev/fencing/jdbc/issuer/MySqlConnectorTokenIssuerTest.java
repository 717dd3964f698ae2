package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.RequiresMariaDb;
import dev.fencing.jdbc.TestDatabase;

/** The token issuer on the MariaDB server through MySQL Connector/J. */
@RequiresMariaDb
class MySqlConnectorTokenIssuerTest extends TokenIssuerTest {
    @Override
    String rawUrl() {
        return TestDatabase.MYSQL.rawUrl();
    }
}
