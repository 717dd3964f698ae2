package dev.fencing.legacy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Books a payment and settles its invoice in one hand-written transaction. */
public class PaymentService {
    private final Database db;
    private final InvoiceDao invoices;

    public PaymentService(Database db, InvoiceDao invoices) {
        this.db = db;
        this.invoices = invoices;
    }

    /** Pays an invoice in full; a wrong amount books nothing. */
    public void pay(int invoiceId, int amount) {
        Connection c = db.open();
        PreparedStatement ps = null;
        try {
            c.setAutoCommit(false);
            ps = c.prepareStatement("INSERT INTO payment (invoice_id, amount) VALUES (?, ?)");
            ps.setInt(1, invoiceId);
            ps.setInt(2, amount);
            ps.executeUpdate();
            int open = invoices.openAmount(c, invoiceId);
            if (open != amount) {
                throw new IllegalArgumentException("invoice " + invoiceId + " is " + open + ", not " + amount);
            }
            invoices.markPaid(c, invoiceId);
            c.commit();
        } catch (SQLException e) {
            Database.rollback(c);
            throw new DataAccessException("cannot pay invoice " + invoiceId, e);
        } catch (RuntimeException e) {
            Database.rollback(c);
            throw e;
        } finally {
            Database.close(null, ps, c);
        }
    }
}
