package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.RequiresPostgres;
import dev.fencing.jdbc.TestDatabase;

/** The token issuer on the real PostgreSQL server. */
@RequiresPostgres
class PostgresTokenIssuerTest extends TokenIssuerTest {
    @Override
    String rawUrl() {
        return TestDatabase.POSTGRESQL.rawUrl();
    }
}
