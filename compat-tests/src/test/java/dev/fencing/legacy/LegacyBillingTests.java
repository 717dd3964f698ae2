package dev.fencing.legacy;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Date;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The billing application's own tests, as its team wrote them: they know nothing about fencing. Subclasses run
 * them on the raw driver, through the fencing driver in audit mode before tokens are wired, and in enforce mode
 * after; only the URL differs.
 */
abstract class LegacyBillingTests {
    private static final Date JAN_31 = Date.valueOf("2014-01-31");
    private static final Date FEB_28 = Date.valueOf("2014-02-28");
    private static final Date MAR_01 = Date.valueOf("2014-03-01");

    Database db;
    CustomerDao customers;
    InvoiceDao invoices;
    PaymentService payments;

    /** The JDBC URL the application is configured with. */
    abstract String url();

    @BeforeEach
    void install() {
        db = new Database(url());
        Schema.reset(db);
        customers = new CustomerDao(db);
        invoices = new InvoiceDao(db);
        payments = new PaymentService(db, invoices);
    }

    @Test
    void aCustomerChangesTheirEmail() {
        int ann = customers.create("Ann", "ann@example.com");
        assertTrue(customers.changeEmail(ann, "ann@example.org"));
        assertEquals("ann@example.org", customers.email(ann));
    }

    @Test
    void aPaymentSettlesItsInvoice() {
        int invoice = invoices.issue(customers.create("Bob", null), 12_000, FEB_28);
        payments.pay(invoice, 12_000);
        assertEquals("PAID", invoices.status(invoice));
    }

    @Test
    void aWrongAmountBooksNothing() {
        int invoice = invoices.issue(customers.create("Cid", null), 5_000, FEB_28);
        assertThrows(IllegalArgumentException.class, () -> payments.pay(invoice, 4_000));
        assertEquals("OPEN", invoices.status(invoice));
        payments.pay(invoice, 5_000);
        assertEquals("PAID", invoices.status(invoice));
    }

    @Test
    void theLateFeeJobChargesEachOverdueInvoiceOnce() {
        int dan = customers.create("Dan", null);
        int overdue1 = invoices.issue(dan, 1_000, JAN_31);
        int overdue2 = invoices.issue(dan, 2_000, FEB_28);
        int current = invoices.issue(dan, 3_000, Date.valueOf("2014-04-30"));
        LateFeeJob job = new LateFeeJob(db, invoices);
        assertEquals(2, job.run(MAR_01, 500));
        assertEquals(0, job.run(MAR_01, 500), "a second run finds nothing new");
        assertEquals("OPEN+fee", invoices.status(overdue1));
        assertEquals("OPEN+fee", invoices.status(overdue2));
        assertEquals("OPEN", invoices.status(current));
        payments.pay(overdue1, 1_500);
    }

    @Test
    void theArchiveJobMovesPaidInvoicesAndTheReportShowsThem() {
        int eve = customers.create("Eve", null);
        int fay = customers.create("Fay", null);
        payments.pay(invoices.issue(eve, 1_000, FEB_28), 1_000);
        payments.pay(invoices.issue(eve, 2_000, FEB_28), 2_000);
        invoices.issue(fay, 700, FEB_28);
        assertEquals(2, new ArchiveJob(db).run());
        List<String> report = new RevenueReport(db).lines();
        assertEquals(List.of("Eve: paid 3000, open 0 in 0 invoices", "Fay: paid 0, open 700 in 1 invoices"), report);
    }
}
