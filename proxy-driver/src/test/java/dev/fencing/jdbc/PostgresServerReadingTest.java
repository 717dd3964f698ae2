package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * How the driver reads PostgreSQL's texts, judged by the server (see {@link ServerReadingTest}); the run's
 * functions live in a schema of its own, first in the search path.
 */
@RequiresPostgres
class PostgresServerReadingTest extends ServerReadingTest {
    private String schema;

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    void createSchema() throws SQLException {
        schema = TestDatabase.unique("rds");
        TestDatabase.exec(raw, "CREATE SCHEMA " + schema);
    }

    @Override
    String url() {
        return raw + "&currentSchema=" + schema + ",public";
    }

    @Override
    void dropAll() throws SQLException {
        TestDatabase.exec(raw, "DROP SCHEMA " + schema + " CASCADE");
    }

    @Test
    void aWritingFunctionNamedLikeAKeywordNeedsAToken_C9() throws SQLException {
        for (String name : new String[] {"by", "join"}) {
            TestDatabase.exec(raw, "CREATE FUNCTION " + schema + "." + name + "() RETURNS int LANGUAGE sql AS"
                    + " 'UPDATE " + schema + "." + table + " SET balance = balance + 1 RETURNING 1'");
        }
        for (String sql : new String[] {"SELECT by()", "SELECT join()", "SELECT * FROM by()",
                "SELECT 1 FROM " + table + " WHERE join() = 1"}) {
            refusedWithoutToken(sql);
        }
        String before = snapshot();
        try (Connection c = tokenless(); PreparedStatement ps = c.prepareStatement("SELECT by()")) {
            assertThrows(SQLException.class, ps::executeQuery);
        }
        assertEquals(before, snapshot());
    }

    @Test
    void aLockOnTheEpochTableWithCommentsBetweenItsWordsIsRefused_C5() throws SQLException {
        aLockOnTheEpochTableWithCommentsBetweenItsWordsIsRefused("SELECT * FROM fencing_epoch FOR/**/UPDATE",
                "SELECT * FROM fencing_epoch FOR NO -- x\nKEY UPDATE",
                "SELECT * FROM fencing_epoch FOR/* a */KEY/* b */SHARE");
    }
}
