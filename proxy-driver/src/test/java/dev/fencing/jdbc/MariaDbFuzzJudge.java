package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * The MariaDB fuzz run's judge, cheap per statement and blind to nothing. Every statement: one round trip of
 * {@code CHECKSUM TABLE} over the data table, its trigger log and the epoch table (every row change, any column)
 * and the server's DDL counter (the sum of its {@code Com_create_*}, {@code Com_drop_*}, {@code Com_alter_*},
 * {@code Com_rename_*}, {@code Com_truncate} statuses, counted for every DDL statement that runs, also inside a
 * procedure or as dynamic SQL, whether or not it succeeds). The schema's objects (tables and views, columns,
 * indexes, triggers, procedures and functions, events, view texts, each of a name {@link #RUN_NAMES} or on a table
 * of such a name) are read from {@code information_schema} when
 * that counter moved (any session's DDL moves it: other work on a shared server costs reads, never blindness),
 * every {@value #SCHEMA_EVERY} statements regardless, and at the end of the run.
 *
 * <p>Measured on MariaDB 10.11 with the run's tables: the checksum 0.2 ms, the counter 0.5 ms, the schema read
 * 10-12 ms, 7.6 ms of it the triggers (the server opens every table's trigger file to list them).
 */
final class MariaDbFuzzJudge implements FuzzTest.Judge {
    static final int SCHEMA_EVERY = 1000;
    /**
     * The names a fuzzed text can give an object (the corpus's names, all {@code fz...}, repeated or cut short, in
     * either case): the database is shared with the other MariaDB tests, whose objects are not the run's.
     */
    static final String RUN_NAMES = "(?i)^(f|fz.*)$";
    private static final String DDL_COUNTER = "SELECT SUM(VARIABLE_VALUE) FROM information_schema.GLOBAL_STATUS"
            + " WHERE VARIABLE_NAME RLIKE '^COM_(CREATE|DROP|ALTER|RENAME|TRUNCATE)'";
    private static final String SCHEMA = "SELECT CONCAT_WS(' | ',"
            + part("TABLES", "TABLE_NAME, ' ', TABLE_TYPE, ' ', IFNULL(ENGINE, '-')", "TABLE_NAME", "TABLE_SCHEMA", "TABLE_NAME")
            + ", " + part("COLUMNS", "TABLE_NAME, '.', COLUMN_NAME, ' ', COLUMN_TYPE, ' ', IS_NULLABLE, ' ',"
                    + " IFNULL(COLUMN_DEFAULT, '-'), ' ', EXTRA, ' ', IFNULL(COLLATION_NAME, '-')",
                    "TABLE_NAME, ORDINAL_POSITION", "TABLE_SCHEMA", "TABLE_NAME")
            + ", " + part("STATISTICS", "TABLE_NAME, '.', INDEX_NAME, '.', SEQ_IN_INDEX, ' ', COLUMN_NAME, ' ',"
                    + " NON_UNIQUE", "TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX", "TABLE_SCHEMA", "TABLE_NAME")
            + ", " + part("TRIGGERS", "TRIGGER_NAME, ' ', ACTION_TIMING, ' ', EVENT_MANIPULATION, ' ',"
                    + " EVENT_OBJECT_TABLE, ' ', ACTION_STATEMENT", "TRIGGER_NAME", "TRIGGER_SCHEMA",
                    "EVENT_OBJECT_TABLE")
            + ", " + part("ROUTINES", "ROUTINE_TYPE, ' ', ROUTINE_NAME, ' ', IFNULL(ROUTINE_DEFINITION, '-')",
                    "ROUTINE_TYPE, ROUTINE_NAME", "ROUTINE_SCHEMA", "ROUTINE_NAME")
            + ", " + part("EVENTS", "EVENT_NAME, ' ', STATUS, ' ', IFNULL(EXECUTE_AT, '-'), ' ',"
                    + " IFNULL(INTERVAL_VALUE, '-'), ' ', EVENT_DEFINITION", "EVENT_NAME", "EVENT_SCHEMA",
                    "EVENT_NAME")
            + ", " + part("VIEWS", "TABLE_NAME, ' ', VIEW_DEFINITION", "TABLE_NAME", "TABLE_SCHEMA",
                    "TABLE_NAME") + ")";

    private final Connection connection;
    private final Statement statement;
    private final String rowsAndCounter;
    private long counter = Long.MIN_VALUE;
    private String schema;
    private int sinceSchemaRead;
    private int schemaReads;

    MariaDbFuzzJudge(String rawUrl, String... tables) throws SQLException {
        connection = DriverManager.getConnection(rawUrl);
        statement = connection.createStatement();
        // A judge that waits for an attacker's lock fails the run instead of hanging it.
        statement.execute("SET SESSION group_concat_max_len = 16777216, lock_wait_timeout = 20,"
                + " innodb_lock_wait_timeout = 20");
        rowsAndCounter = "CHECKSUM TABLE " + String.join(", ", tables) + " EXTENDED; " + DDL_COUNTER;
    }

    private static String part(String view, String row, String order, String schemaColumn, String nameColumn) {
        return "(SELECT CONCAT('" + view.toLowerCase(Locale.ROOT) + " ', count(*), ' ', IFNULL(MD5("
                + "GROUP_CONCAT(" + row + " ORDER BY " + order + " SEPARATOR '\\n')), '-')) FROM information_schema."
                + view + " WHERE " + schemaColumn + " = DATABASE() AND " + nameColumn + " RLIKE '" + RUN_NAMES + "')";
    }

    /** The rows' checksums and the schema's print, the schema read again if any DDL ran since the last read. */
    @Override
    public String read() throws SQLException {
        StringJoiner rows = new StringJoiner(" ");
        long ddl;
        statement.execute(rowsAndCounter);
        try (ResultSet rs = statement.getResultSet()) {
            while (rs.next()) {
                rows.add(rs.getString(1) + "=" + rs.getString(2));
            }
        }
        statement.getMoreResults();
        try (ResultSet rs = statement.getResultSet()) {
            rs.next();
            ddl = rs.getLong(1);
        }
        if (ddl != counter || ++sinceSchemaRead >= SCHEMA_EVERY) {
            readSchema();
            counter = ddl;
        }
        return rows + " | " + schema;
    }

    /** As {@link #read()}, with the schema read whatever the counter says (the end of a run). */
    @Override
    public String readAll() throws SQLException {
        counter = Long.MIN_VALUE;
        return read();
    }

    private void readSchema() throws SQLException {
        try (ResultSet rs = statement.executeQuery(SCHEMA)) {
            rs.next();
            schema = rs.getString(1);
        }
        sinceSchemaRead = 0;
        schemaReads++;
    }

    @Override
    public String figures() {
        return "schema reads " + schemaReads;
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
