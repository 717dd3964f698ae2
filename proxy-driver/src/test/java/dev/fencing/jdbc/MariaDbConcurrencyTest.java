package dev.fencing.jdbc;

import java.sql.SQLException;

/**
 * SPEC C4 on the MariaDB server (InnoDB, REPEATABLE READ) with real threads and overlapping transactions, through
 * MariaDB Connector/J (and MySQL Connector/J by a subclass).
 */
@RequiresMariaDb
class MariaDbConcurrencyTest extends ConcurrencyTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    void createTable() throws SQLException {
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB",
                "INSERT INTO " + table + " VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0), (8, 0)");
    }

    @Override
    String sleep() {
        return "DO SLEEP(0.2)";
    }
}
