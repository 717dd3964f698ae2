package dev.fencing.legacy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Opens connections from a JDBC URL (read from configuration) and closes JDBC resources quietly. */
public class Database {
    private final String url;

    public Database(String url) {
        this.url = url;
    }

    public Connection open() {
        try {
            return DriverManager.getConnection(url);
        } catch (SQLException e) {
            throw new DataAccessException("cannot connect to " + url, e);
        }
    }

    public static void close(ResultSet rs, Statement st, Connection c) {
        try {
            if (rs != null) {
                rs.close();
            }
        } catch (SQLException ignored) {
            // closing: nothing left to do
        }
        try {
            if (st != null) {
                st.close();
            }
        } catch (SQLException ignored) {
            // closing: nothing left to do
        }
        try {
            if (c != null) {
                c.close();
            }
        } catch (SQLException ignored) {
            // closing: nothing left to do
        }
    }

    public static void rollback(Connection c) {
        try {
            if (c != null) {
                c.rollback();
            }
        } catch (SQLException ignored) {
            // the original failure is the one to report
        }
    }
}
