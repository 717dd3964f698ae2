package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How the driver reads H2's texts, judged by embedded H2 (see {@link ServerReadingTest}). */
class H2ServerReadingTest extends ServerReadingTest {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Test
    void aWritingFunctionNamedLikeAKeywordNeedsAToken_C9() throws SQLException {
        TestDatabase.exec(raw, "CREATE ALIAS \"BY\" FOR 'dev.fencing.jdbc.BypassProcedures.bump'",
                "CREATE ALIAS \"THEN\" FOR 'dev.fencing.jdbc.BypassProcedures.bump'");
        String args = "('" + table.toUpperCase(java.util.Locale.ROOT) + "', 1)";
        for (String sql : new String[] {"SELECT BY" + args, "SELECT THEN" + args, "SET @x = BY" + args,
                "SELECT * FROM " + table + " WHERE BY" + args + " = 1"}) {
            refusedWithoutToken(sql);
        }
    }

    @Test
    void aLockOnTheEpochTableWithCommentsBetweenItsWordsIsRefused_C5() throws SQLException {
        aLockOnTheEpochTableWithCommentsBetweenItsWordsIsRefused("SELECT * FROM fencing_epoch FOR/**/UPDATE",
                "SELECT * FROM fencing_epoch FOR -- x\nUPDATE");
    }

    @Test
    void aMergeKeyOfANameH2FoldsToTheEpochTableIsRefusedWithACurrentToken_C5() throws SQLException {
        String before = snapshot();
        for (String sql : new String[] {"MERGE INTO fenc\u0131ng_epoch KEY(resource) VALUES('" + resource + "', 99)",
                "UPDATE fenc\u0131ng_epoch SET epoch = 99 WHERE resource = '" + resource + "'"}) {
            try (Connection c = owner(MARK)) {
                assertEquals(FencingSqlState.PROTECTED, refusedAndNothingChanged(c, sql), sql);
            }
        }
        assertEquals(before, snapshot());
    }
}
