package dev.fencing.jdbc;

/**
 * Savepoints and isolation levels on MariaDB (InnoDB), with two connections. MariaDB 10.11 releases the row locks
 * taken after a savepoint when it is rolled back (measured: a waiting writer goes on at once), as PostgreSQL does,
 * so the common tests apply. SERIALIZABLE makes InnoDB's plain reads take shared locks: the old owner's snapshot
 * reads only its own row, so the new owner can commit first.
 */
@RequiresMariaDb
class MariaDbSavepointIsolationTest extends SavepointIsolationTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    String snapshotQuery() {
        return "SELECT balance FROM " + table + " WHERE id = 1";
    }
}
