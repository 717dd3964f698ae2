package dev.fencing.legacy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** Moves paid invoices to the archive: copy, then delete, in one transaction. */
public class ArchiveJob {
    private final Database db;

    public ArchiveJob(Database db) {
        this.db = db;
    }

    public int run() {
        Connection c = db.open();
        Statement st = null;
        try {
            c.setAutoCommit(false);
            st = c.createStatement();
            st.executeUpdate("INSERT INTO invoice_archive (id, customer_id, amount, due)"
                    + " SELECT id, customer_id, amount + late_fee, due FROM invoice WHERE status = 'PAID'");
            st.executeUpdate("DELETE FROM payment WHERE invoice_id IN (SELECT id FROM invoice WHERE status = 'PAID')");
            int moved = st.executeUpdate("DELETE FROM invoice WHERE status = 'PAID'");
            c.commit();
            return moved;
        } catch (SQLException e) {
            Database.rollback(c);
            throw new DataAccessException("archive job failed", e);
        } finally {
            Database.close(null, st, c);
        }
    }
}
