package dev.fencing.jdbc;

/**
 * The MariaDB bypass suite through MySQL Connector/J ({@code jdbc:fencing:mysql:}) on the same server: the
 * driver's own text handling, its status flags and its vendor objects.
 */
class MySqlConnectorBypassTest extends MariaDbBypassTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }

    @Override
    String rawUrl() {
        return database().rawUrl() + "&allowLoadLocalInfile=true";
    }

    /**
     * MySQL Connector/J runs {@code {? = call f()}} as a {@code SELECT} of the function, which the fence guards: a
     * stored function cannot commit on MariaDB, so nothing ends the guard's transaction.
     */
    @Override
    Path adjust(Path path) {
        if (path.name().equals("prepareCall {? = call f(?, ?)}")) {
            return guarded(path.name(), path.attempt());
        }
        return super.adjust(path);
    }
}
