package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The fence's tables stay where they were at connect on H2, whatever SET SCHEMA or setSchema does later. */
class H2SchemaPathTest extends SchemaPathTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Override
    String home() {
        return "PUBLIC";
    }

    @Override
    List<NamedMove> moves() {
        String schema = decoy.toUpperCase(Locale.ROOT);
        return List.of(
                new NamedMove("SET SCHEMA", c -> c.createStatement().execute("SET SCHEMA " + schema)),
                new NamedMove("Connection.setSchema", c -> c.setSchema(schema)),
                new NamedMove("SET SCHEMA_SEARCH_PATH", c -> c.createStatement().execute(
                        "SET SCHEMA " + schema + "; SET SCHEMA_SEARCH_PATH " + schema + ", PUBLIC")));
    }

    @Test
    void aUrlSchemaWithoutTheTablesStillFindsBothThroughTheSearchPath_C7() throws Exception {
        String empty = TestDatabase.unique("empty").toUpperCase(Locale.ROOT);
        TestDatabase.exec(raw, "CREATE SCHEMA " + empty);
        try {
            String before = raw;
            raw = raw + ";SCHEMA=" + empty + ";SCHEMA_SEARCH_PATH=" + empty + ",PUBLIC";
            try {
                FencingRefusedException e = refusedAfter(null, NEVER_ISSUED);
                assertEquals(FencingSqlState.TOKEN_NOT_ISSUED, e.getSQLState(), e.getMessage());
            } finally {
                raw = before;
            }
            assertNothingChanged("URL SCHEMA");
        } finally {
            TestDatabase.exec(raw, "DROP SCHEMA " + empty);
        }
    }
}
