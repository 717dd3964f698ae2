package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.TestDatabase;

/** The token issuer on embedded H2. */
class H2TokenIssuerTest extends TokenIssuerTest {
    @Override
    String rawUrl() {
        return TestDatabase.H2.rawUrl();
    }
}
