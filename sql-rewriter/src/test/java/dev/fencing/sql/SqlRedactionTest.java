package dev.fencing.sql;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SqlRedactionTest {
    private static String redact(String sql) {
        return SqlRedaction.withoutLiterals(sql, Dialect.POSTGRESQL);
    }

    @Test
    void stringAndNumberLiteralsBecomeMarkers() {
        assertEquals("UPDATE acct SET balance = ?, name = ? WHERE id = ? AND t1.x = ?",
                redact("UPDATE acct SET balance = 12.50, name = 'O''Brien' WHERE id = 7 AND t1.x = E'a\\'b'"));
    }

    @Test
    void identifiersMarkersAndDollarQuotedBodiesStay() {
        assertEquals("INSERT INTO \"Order 1\" (a1, b) VALUES (?, $1)", redact("INSERT INTO \"Order 1\" (a1, b) VALUES (?, $1)"));
        assertEquals("DO $$ BEGIN UPDATE t SET x = 1; END $$", redact("DO $$ BEGIN UPDATE t SET x = 1; END $$"));
    }

    @Test
    void whiteSpaceCollapsesAndStatementsAreJoined() {
        assertEquals("UPDATE t SET x = ?; DELETE FROM t WHERE y = ?",
                redact("UPDATE t\n   SET x = 1 ;\n\tDELETE FROM t WHERE y = 'a;b'"));
    }

    @Test
    void textsThatDifferOnlyInValuesAreEqual() {
        assertEquals(redact("INSERT INTO t VALUES (1, 'a')"), redact("INSERT INTO t VALUES (22, 'bb')"));
    }

    @Test
    void aRepeatedStatementAppearsOnce() {
        assertEquals("INSERT INTO t VALUES (?); DELETE FROM t", redact("INSERT INTO t VALUES (1);\nINSERT INTO t VALUES (2);DELETE FROM t"));
    }

    @Test
    void nullTextIsEmpty() {
        assertEquals("", redact(null));
    }
}
