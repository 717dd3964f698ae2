package dev.fencing.jdbc;

/** The fencing contract on the MariaDB server through MySQL Connector/J ({@code jdbc:fencing:mysql:}). */
@RequiresMariaDb
class MySqlConnectorFencingContractTest extends FencingContractTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL;
    }
}
