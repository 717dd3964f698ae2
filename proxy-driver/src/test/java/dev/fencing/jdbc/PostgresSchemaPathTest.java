package dev.fencing.jdbc;

import java.util.List;

/**
 * The fence's tables stay where they were at connect on PostgreSQL, whatever search_path, set_config or
 * setSchema does later; a URL currentSchema finds the lease table the way it finds the epoch table.
 */
@RequiresPostgres
class PostgresSchemaPathTest extends SchemaPathTest {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    String home() {
        return "public";
    }

    @Override
    List<NamedMove> moves() {
        return List.of(
                new NamedMove("SET search_path", c -> c.createStatement().execute("SET search_path TO " + decoy + ", public")),
                new NamedMove("Connection.setSchema", c -> c.setSchema(decoy)),
                new NamedMove("set_config in a query", c -> c.createStatement().executeQuery(
                        "SELECT set_config('search_path', '" + decoy + ",public', false)").close()),
                new NamedMove("SET SESSION search_path in a transaction", c -> {
                    c.setAutoCommit(false);
                    c.createStatement().execute("SET search_path = " + decoy + ", public");
                }));
    }

    @Override
    String[] urlSchema(String empty) {
        return new String[] {"currentSchema=" + empty + ",public"};
    }
}
