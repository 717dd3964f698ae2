package dev.fencing.compat.corpus;

import dev.fencing.jdbc.RequiresMariaDb;

/** {@link MariaDbCorpusTest} through MySQL Connector/J ({@code jdbc:fencing:mysql:}) on the same server. */
@RequiresMariaDb
class MySqlConnectorCorpusTest extends MariaDbCorpusTest {
    @Override
    String label() {
        return "MariaDB through MySQL Connector/J";
    }

    @Override
    Twins.Factory twins() {
        return MariaDbTwins.factory(true);
    }
}
