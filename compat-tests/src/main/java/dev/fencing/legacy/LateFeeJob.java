package dev.fencing.legacy;

import java.sql.Connection;
import java.sql.Date;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** The nightly batch job: a late fee on every overdue invoice, sent as one JDBC batch of built SQL. */
public class LateFeeJob {
    private final Database db;
    private final InvoiceDao invoices;

    public LateFeeJob(Database db, InvoiceDao invoices) {
        this.db = db;
        this.invoices = invoices;
    }

    public int run(Date today, int fee) {
        List<Integer> overdue = invoices.overdue(today);
        if (overdue.isEmpty()) {
            return 0;
        }
        Connection c = db.open();
        Statement st = null;
        try {
            c.setAutoCommit(false);
            st = c.createStatement();
            for (int i = 0; i < overdue.size(); i++) {
                st.addBatch("UPDATE invoice SET late_fee = " + fee + " WHERE id = " + overdue.get(i));
            }
            int[] counts = st.executeBatch();
            c.commit();
            return counts.length;
        } catch (SQLException e) {
            Database.rollback(c);
            throw new DataAccessException("late fee job failed", e);
        } finally {
            Database.close(null, st, c);
        }
    }
}
