package dev.fencing.jdbc;

/** {@link NetworkFaultTest} on the MariaDB server through MariaDB Connector/J. */
@RequiresMariaDb
class MariaDbNetworkFaultTest extends NetworkFaultTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    String[] tables(String name) {
        return new String[] {name + "_fence", name + "_lease"};
    }

    @Override
    String socketTimeout(long millis) {
        return "socketTimeout=" + millis;
    }

    @Override
    String[] textInEveryRequest() {
        return new String[] {};
    }

    @Override
    String autoCommitWriteCommits() {
        return "COMMIT";
    }
}
