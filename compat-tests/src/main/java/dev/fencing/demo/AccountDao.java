package dev.fencing.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** A DAO written the way legacy code is: plain JDBC, no idea that fencing exists. */
public final class AccountDao {
    private final DataSource dataSource;

    public AccountDao(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public void createSchema() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS account (id INT PRIMARY KEY, owner VARCHAR(40), balance INT)");
        }
    }

    public void open(int id, String owner, int balance) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO account (id, owner, balance) VALUES (?, ?, ?)")) {
            ps.setInt(1, id);
            ps.setString(2, owner);
            ps.setInt(3, balance);
            ps.executeUpdate();
        }
    }

    public void setBalance(int id, String owner, int balance) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE account SET balance = ?, owner = ? WHERE id = ?")) {
            ps.setInt(1, balance);
            ps.setString(2, owner);
            ps.setInt(3, id);
            ps.executeUpdate();
        }
    }

    public String describe(int id) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT owner, balance FROM account WHERE id = ?")) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? "balance " + rs.getInt(2) + ", last written by " + rs.getString(1) : "no account";
            }
        }
    }
}
