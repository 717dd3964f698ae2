package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** Java procedures that H2 runs as stored procedures ({@code CREATE ALIAS ... FOR}): each writes the named table. */
public final class BypassProcedures {
    private BypassProcedures() {
    }

    /** Adds {@code n} to every balance of {@code table}; returns {@code n}. H2 passes its own connection first. */
    public static int bump(Connection connection, String table, int n) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.executeUpdate("UPDATE \"" + table + "\" SET balance = balance + " + n);
        }
        return n;
    }
}
