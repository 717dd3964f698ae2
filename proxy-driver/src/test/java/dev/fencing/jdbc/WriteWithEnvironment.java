package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A child process for the environment tests: connects through a fencing URL (the resource and token come from its
 * environment), runs one statement and prints {@code ok} or the SQLState it was refused with.
 *
 * <p>Arguments: fenced URL, statement.
 */
public final class WriteWithEnvironment {
    private WriteWithEnvironment() {
    }

    public static void main(String[] args) {
        try (Connection c = DriverManager.getConnection(args[0]); Statement s = c.createStatement()) {
            s.executeUpdate(args[1]);
            System.out.println("ok");
        } catch (SQLException e) {
            System.out.println(e.getMessage());
            System.out.println(e.getSQLState());
        }
    }
}
