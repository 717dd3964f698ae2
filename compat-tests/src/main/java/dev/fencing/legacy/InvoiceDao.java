package dev.fencing.legacy;

import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Invoices; the connection-taking methods join a transaction the caller runs. */
public class InvoiceDao {
    private final Database db;

    public InvoiceDao(Database db) {
        this.db = db;
    }

    public int issue(int customerId, int amount, Date due) {
        Connection c = db.open();
        PreparedStatement ps = null;
        ResultSet keys = null;
        try {
            ps = c.prepareStatement("INSERT INTO invoice (customer_id, amount, due, status) VALUES (?, ?, ?, 'OPEN')",
                    new String[] {"id"});
            ps.setInt(1, customerId);
            ps.setInt(2, amount);
            ps.setDate(3, due);
            ps.executeUpdate();
            keys = ps.getGeneratedKeys();
            keys.next();
            return keys.getInt(1);
        } catch (SQLException e) {
            throw new DataAccessException("cannot issue an invoice to " + customerId, e);
        } finally {
            Database.close(keys, ps, c);
        }
    }

    int openAmount(Connection c, int invoiceId) throws SQLException {
        PreparedStatement ps = null;
        ResultSet rs = null;
        try {
            ps = c.prepareStatement("SELECT amount + late_fee FROM invoice WHERE id = ? AND status = 'OPEN'");
            ps.setInt(1, invoiceId);
            rs = ps.executeQuery();
            return rs.next() ? rs.getInt(1) : -1;
        } finally {
            Database.close(rs, ps, null);
        }
    }

    void markPaid(Connection c, int invoiceId) throws SQLException {
        Statement st = c.createStatement();
        try {
            st.executeUpdate("UPDATE invoice SET status = 'PAID' WHERE id = " + invoiceId);
        } finally {
            Database.close(null, st, null);
        }
    }

    public String status(int invoiceId) {
        Connection c = db.open();
        Statement st = null;
        ResultSet rs = null;
        try {
            st = c.createStatement();
            rs = st.executeQuery("SELECT status, late_fee FROM invoice WHERE id = " + invoiceId);
            return rs.next() ? rs.getString(1) + (rs.getInt(2) > 0 ? "+fee" : "") : "ARCHIVED";
        } catch (SQLException e) {
            throw new DataAccessException("cannot read invoice " + invoiceId, e);
        } finally {
            Database.close(rs, st, c);
        }
    }

    public List<Integer> overdue(Date today) {
        Connection c = db.open();
        PreparedStatement ps = null;
        ResultSet rs = null;
        List<Integer> ids = new ArrayList<Integer>();
        try {
            ps = c.prepareStatement("SELECT id FROM invoice WHERE status = 'OPEN' AND due < ? AND late_fee = 0 ORDER BY id");
            ps.setDate(1, today);
            rs = ps.executeQuery();
            while (rs.next()) {
                ids.add(rs.getInt(1));
            }
            return ids;
        } catch (SQLException e) {
            throw new DataAccessException("cannot list overdue invoices", e);
        } finally {
            Database.close(rs, ps, c);
        }
    }
}
