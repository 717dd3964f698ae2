package dev.fencing.jdbc;

import java.util.List;
import java.util.Locale;

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

    @Override
    String[] urlSchema(String empty) {
        String schema = empty.toUpperCase(Locale.ROOT);
        return new String[] {"SCHEMA=" + schema, "SCHEMA_SEARCH_PATH=" + schema + ",PUBLIC"};
    }
}
