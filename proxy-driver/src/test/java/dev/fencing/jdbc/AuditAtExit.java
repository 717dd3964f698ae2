package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * A program for {@link AuditModeTest}: one token-less write in audit mode, then exit; the report file is its argument.
 * With {@code --under-extension} instead, a {@link dev.fencing.jdbc.junit.FencingExtension} is made first and the
 * write's URL names no report file, as application code under test does.
 */
public final class AuditAtExit {
    private AuditAtExit() {
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:exit;DB_CLOSE_DELAY=-1");
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE exit_table (n INT)");
        }
        String url = "jdbc:fencing:h2:mem:exit;fencing.schema=create;fencing.mode=audit";
        if (args[0].equals("--under-extension")) {
            dev.fencing.jdbc.junit.FencingExtension.forUrl("jdbc:h2:mem:exit");
        } else {
            url += ";fencing.audit.file=" + args[0];
        }
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE exit_table SET n = 42");
        }
    }
}
