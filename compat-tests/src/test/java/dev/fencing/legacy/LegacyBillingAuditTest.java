package dev.fencing.legacy;

import dev.fencing.jdbc.FencingAudit;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.junit.FencingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Step 1 of adopting fencing: the same tests, the URL swapped to the fencing driver in audit mode, no token wired.
 * Every test passes as before, and the report lists each statement enforce mode would refuse, with the line of the
 * application that sends it.
 */
class LegacyBillingAuditTest extends LegacyBillingTests {
    private static final String URL = "jdbc:fencing:h2:mem:legacy-audit;DB_CLOSE_DELAY=-1;fencing.schema=create;"
            + "fencing.mode=audit;fencing.audit.file=target/fencing-audit.json";
    private static FencingAudit.Report before;

    @RegisterExtension
    static final FencingExtension FENCING = FencingExtension.forUrl(URL)
            .reportTo(Path.of("target", "legacy-billing-audit.json"));

    @Override
    String url() {
        return URL;
    }

    @BeforeAll
    static void remember() {
        before = FencingAudit.report();
    }

    @AfterAll
    static void theReportNamesEveryTokenlessWriteOfTheApplication() {
        FencingAudit.Report report = FencingAudit.report().since(before);
        System.out.println(report.summary());
        List<FencingAudit.Finding> findings = report.findings().stream()
                .filter(f -> f.callSites().stream().anyMatch(site -> site.startsWith("dev.fencing.legacy.")))
                .collect(Collectors.toList());
        assertEquals(report.findings().size(), findings.size(), "every finding points into the application");
        for (FencingAudit.Finding finding : findings) {
            assertEquals(FencingSqlState.INVALID_TOKEN, finding.sqlState(), finding::toString);
            assertTrue(!finding.refused(), "audit mode refused nothing");
        }
        assertSite(findings, "UPDATE invoice SET late_fee = ? WHERE id = ?", "dev.fencing.legacy.LateFeeJob.run(");
        assertSite(findings, "INSERT INTO payment (invoice_id, amount) VALUES (?, ?)",
                "dev.fencing.legacy.PaymentService.pay(");
        assertSite(findings, "UPDATE invoice SET status = ? WHERE id = ?", "dev.fencing.legacy.InvoiceDao.markPaid(");
        assertSite(findings, "DELETE FROM invoice WHERE status = ?", "dev.fencing.legacy.ArchiveJob.run(");
        assertSite(findings, "INSERT INTO customer (name, email) VALUES (?, ?)", "dev.fencing.legacy.CustomerDao.create(");
        assertSite(findings, "DROP TABLE IF EXISTS payment", "dev.fencing.legacy.Schema.reset(");
    }

    private static void assertSite(List<FencingAudit.Finding> findings, String sql, String site) {
        assertTrue(findings.stream().anyMatch(f -> f.sql().equals(sql)
                && f.callSites().stream().anyMatch(s -> s.startsWith(site))), () -> sql + " at " + site + " in " + findings);
    }
}
