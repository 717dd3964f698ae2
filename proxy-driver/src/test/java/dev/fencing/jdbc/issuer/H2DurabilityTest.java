package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * H2 file databases keep what the issuer and the driver acknowledged (SPEC C7): H2's default {@code WRITE_DELAY}
 * of 500 ms loses recent commits when the process dies, so both set it to 0 at every connect (H2 does not apply
 * the stored setting when it opens the database again) or refuse to connect (ZF006).
 */
class H2DurabilityTest {
    @TempDir
    Path dir;

    @Test
    void anAcknowledgedTokenAndWriteSurviveTheProcessBeingKilled_C7() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();   // H2's default settings
        IssuerFixture db = new IssuerFixture(url);
        String resource = TestDatabase.unique("durable");
        Process job = new ProcessBuilder(ExecProcessTest.javaCommand(AcknowledgingJob.class.getName(), url, db.epoch,
                db.lease, db.data, resource)).redirectError(dir.resolve("job.err").toFile()).start();
        String ack;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(job.getInputStream(),
                StandardCharsets.UTF_8))) {
            ack = out.readLine();
            job.destroyForcibly();   // SIGKILL, a few milliseconds after the acknowledgement
        }
        assertTrue(job.waitFor(30, TimeUnit.SECONDS));
        assertEquals("ack 1", ack);
        String after = "issued " + db.issued(resource) + ", mark " + db.mark(resource) + ", rows " + db.rows(1);
        assertEquals("issued 1, mark 1, rows 1", after, "the token, the mark and the write survived");
        try (TokenIssuer issuer = db.issuer()) {
            issuer.release(new Lease(resource, "crashing", 1, null));
            assertEquals(2, issuer.acquire(resource, "next", Duration.ofSeconds(30)).token());
        }
        db.close();
    }

    @Test
    void aUserWhoCannotTurnOffTheWriteDelayIsRefused_C7() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
        TestDatabase.exec(url, "CREATE USER app PASSWORD 'app'");
        Properties app = new Properties();
        app.setProperty("user", "app");
        app.setProperty("password", "app");
        SQLException refused = assertThrows(SQLException.class, () -> DriverManager.getConnection(
                TestDatabase.fenced(url), app).close());
        assertEquals(FencingSqlState.CONFIGURATION, refused.getSQLState(), refused.toString());
        assertTrue(refused.getMessage().contains("WRITE_DELAY=0") && refused.getMessage().contains("admin"),
                refused.getMessage());
        SQLException issuer = assertThrows(SQLException.class, () -> {
            try (TokenIssuer tokens = TokenIssuer.forUrl(url, app)) {
                tokens.status();
            }
        });
        assertEquals(FencingSqlState.CONFIGURATION, issuer.getSQLState(), issuer.toString());
        assertEquals("500", writeDelay(url), "nothing changed");
        try (Connection admin = DriverManager.getConnection(TestDatabase.fenced(url, "fencing.schema=create"))) {
            assertEquals("0", writeDelay(url), "an admin's connection sets it");
        }
    }

    private static String writeDelay(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                     + " WHERE SETTING_NAME = 'WRITE_DELAY'")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
