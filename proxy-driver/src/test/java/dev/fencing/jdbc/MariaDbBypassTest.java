package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The bypass suite on the MariaDB server through MariaDB Connector/J, with the MySQL family's own forms:
 * multi-table {@code UPDATE}/{@code DELETE}, {@code ON DUPLICATE KEY UPDATE}, {@code REPLACE}, {@code INSERT IGNORE},
 * {@code INSERT ... SET}, {@code LOAD DATA}, {@code RENAME TABLE}, {@code SET STATEMENT ... FOR}, {@code DO}, the
 * {@code sql_mode} settings that change how text is read, {@code #} and {@code -- } comments, executable comments
 * and backslash escapes. Multi-statement texts and local files are enabled in the underlying driver, so every text
 * the fence lets through would really run. MariaDB keeps no per-transaction row counters: the snapshot judges.
 */
@RequiresMariaDb
class MariaDbBypassTest extends BypassTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    String rawUrl() {
        return database().rawUrl() + "&allowLocalInfile=true";
    }

    @Override
    String stored(String name) {
        return name.toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    String quoted(String name) {
        return '`' + stored(name) + '`';
    }

    @Override
    String defaultSchema() {
        try (Statement s = judge.createStatement(); ResultSet rs = s.executeQuery("SELECT DATABASE()")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    Path adjust(Path path) {
        if (path.name().equals("prepareCall {? = call f(?, ?)}")) {
            // Both connectors run a function escape as a query of the function ({@code nativeSQL} gives
            // "? = call f(?, ?)", a text the parser cannot read): guarded, and a stored function cannot commit.
            return guarded(path.name(), path.attempt());
        }
        if (CALL_PATHS.contains(path.name())) {
            // A MariaDB procedure may COMMIT inside.
            return cannotGuard(path.name(), path.attempt());
        }
        switch (path.name()) {
            case "parenthesised and nested comments":
                // MariaDB comments do not nest: the text is `still a comment */ DELETE ...`, a syntax error.
                return null;
            default:
                return path;
        }
    }

    @Override
    void createProcedures() throws SQLException {
        TestDatabase.exec(raw, "CREATE PROCEDURE " + procedure + "(t VARCHAR(64), amount INT) BEGIN"
                        + " SET @fencing_bypass = CONCAT('UPDATE ', t, ' SET balance = balance + ', amount);"
                        + " PREPARE fencing_bypass FROM @fencing_bypass; EXECUTE fencing_bypass;"
                        + " DEALLOCATE PREPARE fencing_bypass; END",
                "CREATE FUNCTION " + function + "(t VARCHAR(64), amount INT) RETURNS INT MODIFIES SQL DATA BEGIN"
                        + " UPDATE " + table + " SET balance = balance + amount; RETURN amount; END",
                "CREATE VIEW " + table + "_wv AS SELECT " + function + "('" + table + "', 1) AS x",
                "CREATE VIEW " + table + "_wvv AS SELECT x FROM " + table + "_wv");
    }

    @Override
    void dropProcedures(Statement s) throws SQLException {
        s.execute("DROP VIEW IF EXISTS " + table + "_wvv");
        s.execute("DROP VIEW IF EXISTS " + table + "_wv");
        s.execute("DROP PROCEDURE IF EXISTS " + procedure);
        s.execute("DROP FUNCTION IF EXISTS " + function);
        s.execute("DROP TABLE IF EXISTS " + table + "_renamed");
        s.execute("DROP VIEW IF EXISTS " + table + "_ev");
    }

    @Override
    String objectsQuery() {
        // the pattern in each part too: the server then opens only the run's own tables, not every table of the
        // shared database (about a tenth of the time, twice per attempt)
        return "SELECT name FROM (SELECT TABLE_NAME AS name FROM information_schema.TABLES"
                + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE ? UNION ALL"
                + " SELECT CONCAT(TABLE_NAME, '.', INDEX_NAME) FROM information_schema.STATISTICS"
                + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE ? UNION ALL"
                + " SELECT CONCAT(EVENT_OBJECT_TABLE, ':', TRIGGER_NAME) FROM information_schema.TRIGGERS"
                + " WHERE TRIGGER_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE LIKE ?) o WHERE name LIKE ? ORDER BY 1";
    }

    @Override
    int objectsQueryParameters() {
        return 4;
    }

    /** MariaDB has no array values; the driver's arrays are covered on H2 and PostgreSQL. */
    @Override
    boolean hasArrays() {
        return false;
    }

    /** MariaDB has no CALL the fence can guard; its other carried forms run once each with the current token. */
    @Override
    List<Attempt> callIncrements() {
        return List.of();
    }

    /** MariaDB's table names are case-sensitive here: the entry names the table as created. */
    @Override
    String exemptEntry(String table) {
        return table;
    }

    @Override
    void exemptWrite(Connection c, String audit) throws SQLException {
        assertEquals(1, c.createStatement().executeUpdate("INSERT INTO " + quoted(audit) + " SET id = 2, note = 'set'"));
    }

    /** Besides the mixed text: multi-table UPDATE and DELETE that write a protected table. */
    @Override
    List<Attempt> mixedWrites(String audit) {
        return List.of(
                c -> c.createStatement().execute("INSERT INTO " + audit + " VALUES (3, 'mixed'); " + update()),
                c -> c.createStatement().executeUpdate("UPDATE " + audit + " a JOIN " + table + " t ON t.id = a.id"
                        + " SET a.note = 'x', t.balance = 0"),
                c -> c.createStatement().executeUpdate("DELETE a, t FROM " + audit + " a JOIN " + table
                        + " t ON t.id = a.id"));
    }

    @Override
    List<Attempt> databaseIncrements() {
        String increment = "UPDATE " + table + " SET balance = balance + 1";
        return List.of(
                c -> c.createStatement().execute("SET STATEMENT max_statement_time = 0 FOR " + increment),
                c -> c.createStatement().executeQuery("SELECT " + function + "('" + table + "', 1)").close(),
                c -> c.createStatement().executeUpdate("INSERT INTO " + table + " VALUES (1, 0) ON DUPLICATE KEY UPDATE"
                        + " balance = balance + 1"),
                c -> c.createStatement().executeUpdate("UPDATE " + table + " a JOIN " + table + " b ON a.id = b.id"
                        + " SET a.balance = a.balance + 1"),
                c -> c.prepareStatement("/*M increment */ " + increment + " # done").executeUpdate());
    }

    @Test
    void loadDataAndHandlerRunWithTheCurrentToken_C5() throws Exception {
        try (Connection c = connect(Attacker.CURRENT_TOKEN); Statement s = c.createStatement()) {
            s.execute("LOAD DATA LOCAL INFILE '" + dataFile() + "' IGNORE INTO TABLE " + table
                    + " FIELDS TERMINATED BY ','");
            s.execute("HANDLER " + table + " OPEN");
            s.execute("HANDLER " + table + " READ `PRIMARY` FIRST");
            try (ResultSet rs = s.getResultSet()) {
                rs.next();
                assertEquals(1, rs.getInt(1));
            }
            s.execute("HANDLER " + table + " CLOSE");
        }
        try (Statement s = judge.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM " + table + " WHERE id = 9")) {
            rs.next();
            assertEquals(900, rs.getInt(1));
        }
        try (Connection c = connect(Attacker.NO_TOKEN); Statement s = c.createStatement()) {
            s.execute("HANDLER " + table + " OPEN");
            s.execute("HANDLER " + table + " READ `PRIMARY` NEXT");
            s.execute("HANDLER " + table + " CLOSE");
        }
    }

    @Override
    List<Path> databasePaths() {
        String update = update();
        String t = table;
        return List.of(
                guarded("multi-table UPDATE", c -> c.createStatement().executeUpdate("UPDATE " + t + " a JOIN " + t
                        + " b ON a.id = b.id SET a.balance = 0")),
                guarded("multi-table UPDATE with a comma join", c -> c.createStatement().executeUpdate(
                        "UPDATE " + t + " a, " + t + " b SET b.balance = 0 WHERE a.id = b.id")),
                guarded("multi-table DELETE", c -> c.createStatement().executeUpdate("DELETE a FROM " + t + " a JOIN "
                        + t + " b ON a.id = b.id WHERE a.id = 2")),
                guarded("multi-table DELETE ... USING (unreadable to the parser: issue 23)", c -> c.createStatement().executeUpdate("DELETE FROM a USING "
                        + t + " a JOIN " + t + " b ON a.id = b.id WHERE a.id = 2")),
                guarded("DELETE ... RETURNING through executeQuery", c -> c.createStatement().executeQuery(
                        "DELETE FROM " + t + " WHERE id = 2 RETURNING id")),
                guarded("INSERT ... ON DUPLICATE KEY UPDATE", c -> c.createStatement().executeUpdate("INSERT INTO " + t
                        + " VALUES (1, 0) ON DUPLICATE KEY UPDATE balance = 0")),
                guarded("INSERT ... RETURNING", c -> c.createStatement().executeQuery("INSERT INTO " + t
                        + " VALUES (3, 0) RETURNING id")),
                guarded("REPLACE", c -> c.createStatement().executeUpdate("REPLACE INTO " + t + " VALUES (1, 0)")),
                guarded("REPLACE ... SET", c -> c.createStatement().executeUpdate("REPLACE " + t + " SET id = 1,"
                        + " balance = 0")),
                guarded("INSERT IGNORE", c -> c.createStatement().executeUpdate("INSERT IGNORE INTO " + t
                        + " VALUES (3, 0)")),
                guarded("INSERT ... SET", c -> c.createStatement().executeUpdate("INSERT INTO " + t + " SET id = 3,"
                        + " balance = 0")),
                guarded("INSERT LOW_PRIORITY without INTO", c -> c.createStatement().executeUpdate(
                        "INSERT LOW_PRIORITY " + t + " VALUES (3, 0)")),
                guarded("UPDATE ... ORDER BY ... LIMIT", c -> c.createStatement().executeUpdate(update
                        + " ORDER BY id LIMIT 1")),
                guarded("LOAD DATA LOCAL INFILE", c -> c.createStatement().execute("LOAD DATA LOCAL INFILE '"
                        + dataFile() + "' INTO TABLE " + t + " FIELDS TERMINATED BY ','")),
                guarded("LOAD DATA LOCAL INFILE REPLACE", c -> c.createStatement().execute("LOAD DATA LOW_PRIORITY LOCAL"
                        + " INFILE '" + dataFile() + "' REPLACE INTO TABLE " + t + " FIELDS TERMINATED BY ','")),
                guarded("LOAD DATA INFILE", c -> c.createStatement().execute("LOAD DATA INFILE '/nonexistent'"
                        + " INTO TABLE " + t)),
                guarded("RENAME TABLE", c -> c.createStatement().execute("RENAME TABLE " + t + " TO " + t
                        + "_renamed")),
                guarded("CREATE TABLE ... SELECT without AS (unreadable to the parser)", c -> c.createStatement().execute("CREATE TABLE " + t
                        + "_copy SELECT * FROM " + t)),
                guarded("CREATE TRIGGER", c -> c.createStatement().execute("CREATE TRIGGER " + t + "_trg BEFORE"
                        + " INSERT ON " + t + " FOR EACH ROW SET NEW.balance = 0")),
                guarded("SET STATEMENT ... FOR UPDATE", c -> c.createStatement().execute(
                        "SET STATEMENT max_statement_time = 0 FOR " + update)),
                guarded("SET STATEMENT ... FOR UPDATE, prepared", c -> c.prepareStatement(
                        "SET STATEMENT max_statement_time = 0 FOR " + update).executeUpdate()),
                guarded("SET STATEMENT ... FOR in a batch", c -> {
                    Statement s = c.createStatement();
                    s.addBatch("SET STATEMENT max_statement_time = 0 FOR " + update);
                    s.executeBatch();
                }),
                guarded("SET STATEMENT with two settings FOR DELETE", c -> c.createStatement().execute(
                        "SET STATEMENT max_statement_time = 0, sql_mode = '' FOR DELETE FROM " + t)),
                guarded("SELECT of a stored function that writes", c -> c.createStatement().executeQuery(
                        "SELECT " + function + "('" + t + "', 1)")),
                guarded("SELECT of a stored function that writes, qualified and quoted", c -> c.createStatement()
                        .executeQuery("SELECT `" + defaultSchema() + "`.`" + function + "`('" + t + "', 1)")),
                guarded("DO of a stored function that writes", c -> c.createStatement().execute(
                        "DO " + function + "('" + t + "', 1)")),
                guarded("SET @x to a stored function that writes", c -> c.createStatement().execute(
                        "SET @x = " + function + "('" + t + "', 1)")),
                guarded("ANALYZE UPDATE, which runs the UPDATE (unreadable to the parser)", c -> c.createStatement().execute("ANALYZE " + update)),
                guarded("a # comment hiding a quote", c -> c.createStatement().execute(
                        "SELECT 1 # it's\n; " + update + "; # '")),
                guarded("a -- comment hiding a quote", c -> c.createStatement().execute(
                        "SELECT 1 -- it's\n; " + update + "; -- '")),
                guarded("--' is no comment on MariaDB", c -> c.createStatement().execute(
                        "SELECT 1 --'\n; SELECT '; " + update + "; SELECT 1")),
                cannotGuard("a backslash-escaped quote", c -> c.createStatement().execute(
                        "SELECT 'it\\'s'; " + update + "; SELECT '\\''")),
                guarded("a string ending in an escaped backslash", c -> c.createStatement().execute(
                        "SELECT '\\\\'; " + update + "; SELECT ''")),
                guarded("a double-quoted string holding a quote", c -> c.createStatement().execute(
                        "SELECT \"it's\"; " + update + "; SELECT \"'\"")),
                guarded("a backquoted name holding a quote", c -> c.createStatement().execute(
                        "SELECT 1 AS `it's`; " + update + "; SELECT 1 AS `'`")),
                cannotGuard("NO_BACKSLASH_ESCAPES changes where a string ends", c -> {
                    c.createStatement().execute("SET sql_mode = 'NO_BACKSLASH_ESCAPES'");
                    c.createStatement().execute("SELECT '\\'; " + update + "; SELECT ''");
                }),
                guarded("ANSI_QUOTES makes a double-quoted string a name, which ends where a string would", c -> {
                    c.createStatement().execute("SET SESSION sql_mode = 'ANSI_QUOTES'");
                    c.createStatement().execute("SELECT \"it's\"; " + update + "; SELECT \"'\"");
                }),
                cannotGuard("an executable comment", c -> c.createStatement().execute("/*! " + update + " */")),
                cannotGuard("a versioned executable comment", c -> c.createStatement().execute(
                        "SELECT 1 /*!50000 ; " + update + " */")),
                cannotGuard("a MariaDB executable comment", c -> c.createStatement().execute(
                        "SELECT 1 /*M!100000 ; " + update + " */")),
                cannotGuard("a write after an implicit commit in one text", c -> c.createStatement().execute(
                        "CREATE TABLE " + t + "_copy (id INT); " + update)),
                cannotGuard("a write batched after an implicit commit", c -> {
                    Statement s = c.createStatement();
                    s.addBatch("LOCK TABLES " + t + " WRITE");
                    s.addBatch(update);
                    s.executeBatch();
                }),
                cannotGuard("SET autocommit = 1 between writes in one text", c -> c.createStatement().execute(
                        update + "; SET autocommit = 1; " + update)),
                cannotGuard("a writing function with BEGIN in one text (found by the fuzzer)", c -> c.createStatement()
                        .execute("SELECT " + function + "('" + t + "', 1);BEGIN")),
                cannotGuard("COMMIT with a writing function in one text", c -> c.createStatement().execute(
                        "COMMIT; SELECT " + function + "('" + t + "', 1)")),
                guarded("EXECUTE IMMEDIATE of a literal", c -> c.createStatement().execute("EXECUTE IMMEDIATE '" + update
                        + "'")),
                guarded("PREPARE ... FROM a literal, then EXECUTE", c -> {
                    c.createStatement().execute("PREPARE w FROM '" + update + "'");
                    c.createStatement().execute("EXECUTE w");
                }),
                cannotGuard("a compound statement (BEGIN NOT ATOMIC)", c -> c.createStatement().execute(
                        "BEGIN NOT ATOMIC " + update + "; END")),
                cannotGuard("a compound statement that commits between its writes", c -> c.createStatement().execute(
                        "BEGIN NOT ATOMIC " + update + "; COMMIT; " + update + "; END")),
                cannotGuard("IF at top level", c -> c.createStatement().execute("IF 1 THEN " + update + "; END IF")),
                cannotGuard("a compound statement, prepared", c -> c.prepareStatement("WHILE (SELECT COUNT(*) FROM "
                        + t + ") > 100 DO " + update + "; END WHILE").execute()),
                cannotGuard("a compound statement after a read in one text", c -> c.createStatement().execute(
                        "SELECT 1; REPEAT " + update + "; UNTIL 1 END REPEAT")),
                cannotGuard("XA START", c -> c.createStatement().execute("XA START 'bypass'")),
                cannotGuard("EXECUTE IMMEDIATE of a variable", c -> {
                    c.createStatement().execute("SET @bypass = '" + update + "'");
                    c.createStatement().execute("EXECUTE IMMEDIATE @bypass");
                }),
                cannotGuard("EXECUTE of a name prepared from a variable", c -> {
                    c.createStatement().execute("SET @bypass = 'SELECT 1'");
                    c.createStatement().execute("PREPARE w FROM @bypass");
                    c.createStatement().execute("EXECUTE w");
                }),
                cannotGuard("CREATE TABLE ... SELECT of a stored function that writes", c -> c.createStatement()
                        .execute("CREATE TABLE " + t + "_copy SELECT " + function + "('" + t + "', 1) AS x")),
                cannotGuard("CREATE TABLE ... SELECT of a view over a view calling a stored function that writes",
                        c -> c.createStatement().execute("CREATE TABLE " + t + "_copy AS SELECT * FROM " + table
                                + "_wvv")),
                guarded("REPLACE ... RETURNING (unreadable to the parser)", c -> c.createStatement().execute(
                        "REPLACE INTO " + t + " VALUES (1, 0) RETURNING id")),
                guarded("UPDATE of a derived table and a table (unreadable to the parser)", c -> c.createStatement()
                        .executeUpdate("UPDATE IGNORE (SELECT 1 AS x) d, " + t + " SET " + t + ".balance = 0")),
                guarded("a syntax error (unreadable to the parser)", c -> c.createStatement().executeUpdate(
                        "UPDATE " + t + " SET WHERE id = 1")),
                guarded("EXECUTE IMMEDIATE of a stored function", c -> c.createStatement().execute(
                        "EXECUTE IMMEDIATE 'SELECT " + function + "(''" + t + "'', 1)'")),
                protectedPath("REPLACE ... RETURNING into the epoch table", c -> c.createStatement().execute(
                        "REPLACE INTO fencing_epoch VALUES ('x', 99) RETURNING epoch")),
                protectedPath("EXECUTE IMMEDIATE of a write to the epoch table", c -> c.createStatement().execute(
                        "EXECUTE IMMEDIATE 'DELETE FROM fencing_epoch'")),
                protectedPath("RENAME TABLE onto the epoch table", c -> c.createStatement().execute("RENAME TABLE " + t
                        + " TO fencing_epoch")),
                protectedPath("RENAME TABLE of the epoch table", c -> c.createStatement().execute(
                        "RENAME TABLE fencing_epoch TO " + t + "_renamed")),
                protectedPath("REPLACE into the epoch table", c -> c.createStatement().executeUpdate(
                        "REPLACE INTO fencing_epoch VALUES ('x', 99)")),
                protectedPath("INSERT ... ON DUPLICATE KEY UPDATE of the epoch table", c -> c.createStatement()
                        .executeUpdate("INSERT INTO fencing_epoch VALUES ('x', 1) ON DUPLICATE KEY UPDATE epoch = 1")),
                protectedPath("a multi-table UPDATE reaching the epoch table", c -> c.createStatement().executeUpdate(
                        "UPDATE " + t + " a JOIN fencing_epoch e SET e.epoch = 1")),
                protectedPath("a comma-joined UPDATE reaching the epoch table", c -> c.createStatement().executeUpdate(
                        "UPDATE " + t + " a, fencing_epoch e SET e.epoch = 1")),
                protectedPath("a multi-table DELETE naming the epoch table by an alias", c -> c.createStatement()
                        .executeUpdate("DELETE x FROM fencing_epoch AS x WHERE x.epoch > 0")),
                protectedPath("a multi-table DELETE reaching the epoch table in a parenthesised join",
                        c -> c.createStatement().executeUpdate("DELETE e FROM " + t + " a JOIN (" + t
                                + " b JOIN fencing_epoch e ON b.id = e.epoch)")),
                guarded("HANDLER ... READ of a stored function that writes", c -> {
                    c.createStatement().execute("HANDLER " + t + " OPEN");
                    c.createStatement().execute("HANDLER " + t + " READ `PRIMARY` FIRST WHERE " + function
                            + "('" + t + "', 1) = 1");
                }),
                protectedPath("a multi-table DELETE reaching the epoch table", c -> c.createStatement().executeUpdate(
                        "DELETE e FROM " + t + " a JOIN fencing_epoch e")),
                protectedPath("LOAD DATA into the epoch table", c -> c.createStatement().execute("LOAD DATA LOCAL"
                        + " INFILE '" + dataFile() + "' REPLACE INTO TABLE fencing_epoch FIELDS TERMINATED BY ','")),
                protectedPath("SET STATEMENT ... FOR TRUNCATE of the epoch table", c -> c.createStatement().execute(
                        "SET STATEMENT max_statement_time = 0 FOR TRUNCATE TABLE fencing_epoch")),
                protectedPath("the epoch table as a double-quoted name under ANSI_QUOTES", c -> {
                    c.createStatement().execute("SET sql_mode = 'ANSI_QUOTES'");
                    c.createStatement().executeUpdate("UPDATE \"fencing_epoch\" SET epoch = 1");
                }),
                protectedPath("a view over the epoch table", c -> c.createStatement().execute(
                        "CREATE VIEW " + t + "_ev AS SELECT * FROM fencing_epoch")),
                protectedPath("dropping the trigger that protects the marks", c -> c.createStatement().execute(
                        "DROP TRIGGER fencing_upd_fencing_epoch")));
    }

    /** A file of two rows for {@code LOAD DATA LOCAL INFILE}: ids 1 and 9. */
    private static String dataFile() throws java.io.IOException {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("fencing-load", ".csv");
        java.nio.file.Files.writeString(file, "1,0\n9,900\n");
        file.toFile().deleteOnExit();
        return file.toString();
    }
}
