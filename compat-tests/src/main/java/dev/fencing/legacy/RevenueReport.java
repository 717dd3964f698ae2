package dev.fencing.legacy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** The monthly report: per customer, what was billed, what is archived (paid) and what is still open. */
public class RevenueReport {
    private final Database db;

    public RevenueReport(Database db) {
        this.db = db;
    }

    public List<String> lines() {
        Connection c = db.open();
        Statement st = null;
        ResultSet rs = null;
        List<String> lines = new ArrayList<String>();
        try {
            st = c.createStatement();
            rs = st.executeQuery("SELECT c.name,"
                    + " COALESCE((SELECT SUM(a.amount) FROM invoice_archive a WHERE a.customer_id = c.id), 0) AS paid,"
                    + " COALESCE(SUM(i.amount + i.late_fee), 0) AS open_amount, COUNT(i.id) AS open_count"
                    + " FROM customer c LEFT JOIN invoice i ON i.customer_id = c.id"
                    + " GROUP BY c.id, c.name ORDER BY c.name");
            while (rs.next()) {
                lines.add(rs.getString(1) + ": paid " + rs.getInt(2) + ", open " + rs.getInt(3) + " in "
                        + rs.getInt(4) + " invoices");
            }
            return lines;
        } catch (SQLException e) {
            throw new DataAccessException("report failed", e);
        } finally {
            Database.close(rs, st, c);
        }
    }
}
