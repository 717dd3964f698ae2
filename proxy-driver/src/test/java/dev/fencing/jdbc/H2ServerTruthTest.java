package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * {@link ServerTruthTest} on H2: changing the isolation level (SQL or JDBC) and {@code SET AUTOCOMMIT TRUE} commit
 * the open transaction.
 */
class H2ServerTruthTest extends ServerTruthTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Override
    void createStatementTrigger() throws SQLException {
        TestDatabase.exec(raw, "CREATE TRIGGER " + table + "_statement AFTER INSERT, UPDATE, DELETE ON " + table
                + " FOR EACH STATEMENT CALL \"" + StatementLogTrigger.class.getName() + "\"");
    }

    @Test
    void changingTheIsolationLevelBySqlCommits_C9() throws Exception {
        staleAfter((old, s) -> s.execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE"));
    }

    @Test
    void changingTheIsolationLevelThroughJdbcCommits_C9() throws Exception {
        staleAfter((old, s) -> old.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE));
    }

    @Test
    void setAutocommitTrueBySqlCommits_C9() throws Exception {
        staleAfter((old, s) -> s.execute("SET AUTOCOMMIT TRUE"));
    }
}
