package dev.fencing.legacy;

import dev.fencing.jdbc.RequiresPostgres;
import dev.fencing.jdbc.TestDatabase;
import dev.fencing.jdbc.FencingMode;
import dev.fencing.jdbc.junit.FencingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.SQLException;

/** Step 2 on PostgreSQL: the application's tests in enforce mode, in a schema of their own on the shared server. */
@RequiresPostgres
class LegacyBillingPostgresEnforceTest extends LegacyBillingTests {
    private static final String SCHEMA = TestDatabase.unique("legacy");
    private static final String URL = TestDatabase.fenced(TestDatabase.pgUrl(), "currentSchema=" + SCHEMA,
            "fencing.schema=create", "fencing.resource=billing",
            "fencing.token.file=" + LegacyBillingEnforceTest.LeaseFile.write(1));

    @RegisterExtension
    static final FencingExtension FENCING = FencingExtension.forUrl(URL).mode(FencingMode.ENFORCE);

    @BeforeAll
    static void createSchema() throws SQLException {
        TestDatabase.exec(TestDatabase.pgUrl(), "CREATE SCHEMA " + SCHEMA);
    }

    @AfterAll
    static void dropSchema() throws SQLException {
        TestDatabase.exec(TestDatabase.pgUrl(), "DROP SCHEMA " + SCHEMA + " CASCADE");
    }

    @Override
    String url() {
        return URL;
    }
}
