package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * How the driver reads MariaDB's texts (multi-statement texts on), judged by the server through MariaDB
 * Connector/J (see {@link ServerReadingTest}).
 */
@RequiresMariaDb
class MariaDbServerReadingTest extends ServerReadingTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    void dropAll() throws SQLException {
        TestDatabase.exec(raw, "DROP TABLE IF EXISTS " + table);
    }

    private String characterSetClient(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@character_set_client")) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void aChangeOfTheClientCharacterSetIsJudgedPerStatement_C9() throws SQLException {
        try (Connection c = tokenless()) {
            String charset = characterSetClient(c);
            for (String sql : new String[] {"SELECT 1; SET NAMES gbk", "SELECT 1; SET CHARACTER SET sjis",
                    "SELECT 1; SET CHARSET gbk", "SET NAMES/**/gbk", "SET NAMES 'utf8mb4', character_set_client = gbk",
                    "SET @@session.character_set_client = gbk", "SET @@character_set_connection = 'big5'",
                    "SET SESSION collation_connection = gbk_chinese_ci", "SELECT 1; SET NAMES -- x\ngbk",
                    "SET STATEMENT character_set_client = gbk FOR SELECT 1", "SET NAMES DEFAULT"}) {
                refusedAndNothingChanged(c, sql);
                assertEquals(charset, characterSetClient(c), sql);
            }
            try (Statement s = c.createStatement()) {
                s.execute("SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci");
                s.execute("SELECT 1; SET NAMES 'utf8mb4'");
                s.execute("SET character_set_client = latin1, character_set_connection = utf8mb4");
                s.execute("SET NAMES utf8mb4");
            }
        }
    }

    @Test
    void readingTheClientCharacterSetIsNoChange_C9() throws SQLException {
        try (Connection c = tokenless(); Statement s = c.createStatement()) {
            s.executeQuery("SELECT @@character_set_client").close();
            s.executeQuery("SELECT @@session.character_set_connection, @@collation_connection").close();
        }
    }

    @Test
    void writingFunctionsNamedAsMariaDbReadsIdentifiersNeedAToken_C9() throws SQLException {
        String suffix = table.substring(table.indexOf('_'));
        String[] names = {"1fx" + suffix, "\u20acx" + suffix, "a\u20acx" + suffix, "a\u00a0x" + suffix};
        try {
            for (String name : names) {
                TestDatabase.exec(raw, "CREATE FUNCTION `" + name + "`() RETURNS INT MODIFIES SQL DATA BEGIN UPDATE "
                        + table + " SET balance = balance + 1; RETURN 1; END");
            }
            for (String name : names) {
                for (String sql : new String[] {"SELECT " + name + "()", "SET @x = " + name + "()",
                        "SELECT * FROM " + table + " WHERE " + name + "() = 1", "SELECT 1; SELECT " + name + "()",
                        "DO " + name + "()"}) {
                    refusedWithoutToken(sql);
                }
            }
        } finally {
            for (String name : names) {
                TestDatabase.exec(raw, "DROP FUNCTION IF EXISTS `" + name + "`");
            }
        }
    }

    @Test
    void aLockOnTheEpochTableWithCommentsBetweenItsWordsIsRefused_C5() throws SQLException {
        aLockOnTheEpochTableWithCommentsBetweenItsWordsIsRefused("SELECT * FROM fencing_epoch FOR/**/UPDATE",
                "SELECT * FROM fencing_epoch FOR # x\nUPDATE", "SELECT * FROM fencing_epoch LOCK/**/IN SHARE MODE");
    }
}
