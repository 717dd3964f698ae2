package dev.fencing.jdbc;

import org.h2.api.Trigger;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** An H2 statement-level trigger for tests: adds a row to {@code <table>_LOG} each time it fires. */
public class StatementLogTrigger implements Trigger {
    private String log;

    @Override
    public void init(Connection conn, String schemaName, String triggerName, String tableName, boolean before,
                     int type) {
        log = '"' + schemaName + "\".\"" + tableName + "_LOG\"";
    }

    @Override
    public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
        try (Statement s = conn.createStatement()) {
            s.executeUpdate("INSERT INTO " + log + " VALUES (1)");
        }
    }
}
