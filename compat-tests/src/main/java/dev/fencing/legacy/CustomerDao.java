package dev.fencing.legacy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Customers. */
public class CustomerDao {
    private final Database db;

    public CustomerDao(Database db) {
        this.db = db;
    }

    public int create(String name, String email) {
        Connection c = db.open();
        PreparedStatement ps = null;
        ResultSet keys = null;
        try {
            ps = c.prepareStatement("INSERT INTO customer (name, email) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS);
            ps.setString(1, name);
            ps.setString(2, email);
            ps.executeUpdate();
            keys = ps.getGeneratedKeys();
            keys.next();
            return keys.getInt(1);
        } catch (SQLException e) {
            throw new DataAccessException("cannot create customer " + name, e);
        } finally {
            Database.close(keys, ps, c);
        }
    }

    public boolean changeEmail(int id, String email) {
        Connection c = db.open();
        PreparedStatement ps = null;
        try {
            ps = c.prepareStatement("UPDATE customer SET email = ? WHERE id = ?");
            ps.setString(1, email);
            ps.setInt(2, id);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new DataAccessException("cannot change the email of customer " + id, e);
        } finally {
            Database.close(null, ps, c);
        }
    }

    public String email(int id) {
        Connection c = db.open();
        PreparedStatement ps = null;
        ResultSet rs = null;
        try {
            ps = c.prepareStatement("SELECT email FROM customer WHERE id = ?");
            ps.setInt(1, id);
            rs = ps.executeQuery();
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new DataAccessException("cannot read customer " + id, e);
        } finally {
            Database.close(rs, ps, c);
        }
    }
}
