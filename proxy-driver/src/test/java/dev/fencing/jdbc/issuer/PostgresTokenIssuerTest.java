package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.TestDatabase;

/** The token issuer on the real PostgreSQL server. */
class PostgresTokenIssuerTest extends TokenIssuerTest {
    @Override
    String rawUrl() {
        return TestDatabase.POSTGRESQL.rawUrl();
    }
}
