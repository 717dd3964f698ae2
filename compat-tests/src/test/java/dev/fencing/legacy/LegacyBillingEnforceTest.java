package dev.fencing.legacy;

import dev.fencing.jdbc.FencingAudit;
import dev.fencing.jdbc.FencingMode;
import dev.fencing.jdbc.junit.FencingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Step 2: tokens wired without touching the code. The billing job's lease agent writes its token to a file and
 * the URL names it; the same tests run in enforce mode, and the extension fails any test that is refused.
 */
class LegacyBillingEnforceTest extends LegacyBillingTests {
    private static final String URL = "jdbc:fencing:h2:mem:legacy-enforce;DB_CLOSE_DELAY=-1;fencing.schema=create;"
            + "fencing.resource=billing;fencing.token.file=" + LeaseFile.write(1);

    @RegisterExtension
    static final FencingExtension FENCING = FencingExtension.forUrl(URL).mode(FencingMode.ENFORCE);

    private static FencingAudit.Report before;

    @Override
    String url() {
        return URL;
    }

    @BeforeAll
    static void remember() {
        before = FencingAudit.report();
    }

    @AfterAll
    static void nothingWasRefused() {
        FencingAudit.Report report = FencingAudit.report().since(before);
        System.out.println(report.summary());
        assertTrue(report.isEmpty(), report::summary);
    }

    /** What a lease agent does: writes the current token to a file. */
    static final class LeaseFile {
        private LeaseFile() {
        }

        static Path write(long token) {
            try {
                Path file = Files.createTempFile("billing-lease", ".token");
                file.toFile().deleteOnExit();
                return Files.writeString(file, Long.toString(token));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
