package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.TestDatabase;
import dev.fencing.jdbc.cli.FencingCli;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The token issuer (SPEC C7) through its Java API and the fencing driver, run on each database by a subclass. */
abstract class TokenIssuerTest {
    private static final Duration TTL = Duration.ofSeconds(30);

    IssuerFixture db;
    TokenIssuer issuer;
    String resource;

    abstract String rawUrl();

    @BeforeEach
    void createTables() throws SQLException {
        db = new IssuerFixture(rawUrl());
        issuer = db.issuer();
        resource = TestDatabase.unique("job");
    }

    @AfterEach
    void dropTables() throws SQLException {
        db.close();
    }

    static FencingRefusedException refused(String sqlState, org.junit.jupiter.api.function.Executable action) {
        FencingRefusedException e = assertThrows(FencingRefusedException.class, action);
        assertEquals(sqlState, e.getSQLState(), e.getMessage());
        return e;
    }

    @Test
    void tokensGrowWithEveryAcquisitionAndAreStoredDurably_C7() throws Exception {
        Lease first = issuer.acquire(resource, "a", TTL);
        assertEquals(1, first.token());
        assertTrue(issuer.release(first));
        Lease second = issuer.acquire(resource, "b", TTL);
        assertEquals(2, second.token());
        issuer.close();
        try (TokenIssuer restarted = db.issuer()) {
            assertTrue(restarted.release(second), "a new issuer (a restart) sees the same lease");
            assertEquals(3, restarted.acquire(resource, "a", TTL).token(), "the sequence lives in the database");
        }
        assertEquals(3, db.issued(resource));
    }

    @Test
    void newTokenIsAboveTheHighWaterMark_C7() throws Exception {
        db.write(resource, 40, "external coordinator");
        assertEquals(40, db.mark(resource));
        assertEquals(41, issuer.acquire(resource, "a", TTL).token(),
                "a resource fed by another coordinator before continues above its mark");
    }

    @Test
    void holderReacquiringItsLiveLeaseKeepsItsToken_C7() throws Exception {
        Lease first = issuer.acquire(resource, "a", Duration.ofSeconds(2));
        Lease again = issuer.acquire(resource, "a", TTL);
        assertEquals(first.token(), again.token());
        assertTrue(again.expiresAt().isAfter(first.expiresAt()), "re-acquiring extends the lease");
    }

    @Test
    void anotherHolderIsRefusedWhileTheLeaseIsLiveAndGetsANewTokenAfterExpiry_C7() throws Exception {
        Lease a = issuer.acquire(resource, "a", Duration.ofMillis(400));
        LeaseUnavailableException busy = assertThrows(LeaseUnavailableException.class,
                () -> issuer.acquire(resource, "b", TTL));
        assertEquals("a", busy.getHolder());
        Lease b = issuer.acquire(resource, "b", TTL, AcquireOptions.DEFAULT.waitUpTo(Duration.ofSeconds(10)));
        assertEquals(a.token() + 1, b.token(), "after expiry (database clock) the waiting holder gets a new token");
        LeaseLostException lost = assertThrows(LeaseLostException.class, () -> issuer.renew(a, TTL));
        assertTrue(lost.getMessage().contains("'b'"), lost.getMessage());
        assertFalse(issuer.release(a), "the old holder cannot release the new holder's lease");
    }

    @Test
    void concurrentAcquirersExactlyOneWins_C7() throws Exception {
        int threads = 6;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Long>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                TokenIssuer own = db.issuer();
                String holder = "h" + i;
                Callable<Long> attempt = () -> {
                    start.await(10, TimeUnit.SECONDS);
                    try {
                        return own.acquire(resource, holder, TTL).token();
                    } catch (LeaseUnavailableException busy) {
                        return -1L;
                    }
                };
                results.add(pool.submit(attempt));
            }
            List<Long> tokens = new ArrayList<>();
            for (Future<Long> result : results) {
                long token = result.get(30, TimeUnit.SECONDS);
                if (token > 0) {
                    tokens.add(token);
                }
            }
            assertEquals(List.of(1L), tokens, "exactly one acquirer wins, with the first token");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void forgedTokenAboveTheIssuedMarkIsRefused_C7() throws Exception {
        Lease lease = issuer.acquire(resource, "a", TTL);
        db.write(resource, lease.token(), "owner");
        FencingRefusedException forged = refused(FencingSqlState.TOKEN_NOT_ISSUED,
                () -> db.write(resource, 1_000_000, "forger"));
        assertTrue(forged.getMessage().contains("1000000") && forged.getMessage().contains(resource),
                forged.getMessage());
        assertEquals(lease.token(), db.mark(resource), "a never-issued token does not become the mark");
        assertEquals(0, db.rows(1_000_000));
        db.write(resource, lease.token(), "owner");
        assertEquals(2, db.rows(lease.token()), "the legitimate owner is not locked out");
    }

    @Test
    void issuerCheckCoversOnlyResourcesUnderTheIssuerOrNoneWhenOff_C7() throws Exception {
        issuer.acquire(resource, "a", TTL);
        String external = TestDatabase.unique("external");
        db.write(external, 500, "external coordinator");
        assertEquals(500, db.mark(external), "a resource without a lease row is not checked");
        issuer.declare(List.of(resource)); // with the check off the lease table is not asked, so the lease does not declare
        try (Connection c = DriverManager.getConnection(db.fenced("fencing.resource=" + resource,
                "fencing.token=99", "fencing.issuer.check=off")); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO " + db.data + " (token, seq) VALUES (99, 0)");
        }
        assertEquals(99, db.mark(resource), "fencing.issuer.check=off turns the check off");
    }

    @Test
    void leaseTableCannotBeChangedThroughTheDriver_C5() throws Exception {
        issuer.acquire(resource, "a", TTL);
        try (Connection c = DriverManager.getConnection(db.fenced("fencing.resource=" + resource, "fencing.token=1"));
             Statement s = c.createStatement()) {
            refused(FencingSqlState.PROTECTED, () -> s.executeUpdate("UPDATE " + db.lease + " SET issued = 999"));
            refused(FencingSqlState.PROTECTED, () -> s.executeUpdate("DELETE FROM " + db.lease.toUpperCase()));
        }
        assertEquals(1, db.issued(resource));
    }

    @Test
    void withoutImmediateRevocationAnOldWriteBeforeAnyNewWriteStillSucceeds_C7() throws Exception {
        Lease a = issuer.acquire(resource, "a", TTL);
        Lease b = issuer.acquire(resource, "b", TTL, AcquireOptions.DEFAULT.takeOver(true));
        db.write(resource, a.token(), "old owner, first to arrive");
        assertEquals(1, db.rows(a.token()), "documented limit: the resource has not seen the new token yet");
        db.write(resource, b.token(), "new owner");
        refused(FencingSqlState.STALE_TOKEN, () -> db.write(resource, a.token(), "old owner, late"));
    }

    @Test
    void immediateRevocationFencesOldWritesThatArriveFirst_C7() throws Exception {
        Lease a = issuer.acquire(resource, "a", TTL);
        db.write(resource, a.token(), "old owner");
        Lease b = issuer.acquire(resource, "b", TTL,
                AcquireOptions.DEFAULT.takeOver(true).revokeImmediately(true));
        assertEquals(b.token(), db.mark(resource), "the new token is the mark at once");
        javax.management.ObjectName fence = new javax.management.ObjectName("dev.fencing:type=Fence,resource="
                + resource);
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        assertEquals(1L, server.getAttribute(fence, "EpochAdvances"), "the revocation is counted as an advance");
        assertEquals(b.token(), server.getAttribute(fence, "CurrentMark"), "before the new owner writes");
        refused(FencingSqlState.STALE_TOKEN, () -> db.write(resource, a.token(), "old owner, in flight"));
        assertEquals(1, db.rows(a.token()));
        db.write(resource, b.token(), "new owner");
        assertEquals(1L, server.getAttribute(fence, "EpochAdvances"), "and only once");
    }

    @Test
    void immediateRevocationWaitsForTheOldOwnersOpenTransaction_C7_C4() throws Exception {
        Lease a = issuer.acquire(resource, "a", TTL);
        try (Connection old = DriverManager.getConnection(db.fenced("fencing.resource=" + resource,
                "fencing.token=" + a.token()))) {
            old.setAutoCommit(false);
            try (Statement s = old.createStatement()) {
                s.executeUpdate("INSERT INTO " + db.data + " (token, seq) VALUES (" + a.token() + ", 1)");
            }
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                TokenIssuer other = db.issuer();
                Future<Lease> takeover = pool.submit(() -> other.acquire(resource, "b", TTL,
                        AcquireOptions.DEFAULT.takeOver(true).revokeImmediately(true)));
                Thread.sleep(300);
                assertFalse(takeover.isDone(), "the revocation waits for the old owner's in-flight transaction");
                old.commit();
                Lease b = takeover.get(30, TimeUnit.SECONDS);
                assertEquals(b.token(), db.mark(resource));
            } finally {
                pool.shutdownNow();
            }
            try (Statement s = old.createStatement()) {
                refused(FencingSqlState.STALE_TOKEN, () -> s.executeUpdate("INSERT INTO " + db.data
                        + " (token, seq) VALUES (" + a.token() + ", 2)"));
            }
            old.rollback();
        }
        assertEquals(1, db.rows(a.token()), "the committed write stays; the later one was refused");
    }

    @Test
    void reconcileAfterRestoringTheLeaseTableFromAnOlderCopy_C7() throws Exception {
        String backup = TestDatabase.unique("lease_backup");
        Lease first = issuer.acquire(resource, "a", TTL);
        db.write(resource, first.token(), "a");
        TestDatabase.exec(db.raw, "CREATE TABLE " + backup + " AS SELECT * FROM " + db.lease);
        try {
            assertTrue(issuer.release(first));
            for (String holder : new String[] {"b", "c"}) {
                Lease next = issuer.acquire(resource, holder, TTL);
                db.write(resource, next.token(), holder);
                assertTrue(issuer.release(next));
            }
            assertEquals(3, db.mark(resource));
            TestDatabase.exec(db.raw, "DELETE FROM " + db.lease, "INSERT INTO " + db.lease + " SELECT * FROM " + backup);
            assertEquals(1, db.issued(resource), "restored from the older copy");

            LeaseStatus status = statusOf(resource);
            assertEquals(1, status.issued());
            assertEquals(3, status.highWaterMark());
            assertEquals(1, status.warnings().size(), "status warns about issued < HWM");

            List<Repair> repairs = issuer.reconcile(false);
            assertEquals(List.of(new Repair(resource, 1, 3)), repairs);
            assertEquals(3, db.issued(resource));
            assertTrue(statusOf(resource).warnings().isEmpty());
            assertEquals(List.of(), issuer.reconcile(false), "reconcile is idempotent and never lowers");
            Lease after = issuer.acquire(resource, "d", TTL);
            assertEquals(4, after.token(), "no token is repeated after the restore");
        } finally {
            TestDatabase.exec(db.raw, "DROP TABLE " + backup);
        }
    }

    @Test
    void reconcileAdoptsResourcesWithoutLeaseRowsOnlyWhenAsked_C7() throws Exception {
        db.write(resource, 7, "before the issuer");
        LeaseStatus before = statusOf(resource);
        assertFalse(before.underIssuer());
        assertEquals(1, before.warnings().size());
        assertEquals(List.of(), issuer.reconcile(false));
        assertEquals(List.of(new Repair(resource, -1, 7)), issuer.reconcile(true));
        assertEquals(7, db.issued(resource));
        refused(FencingSqlState.TOKEN_NOT_ISSUED, () -> db.write(resource, 8, "not issued"));
    }

    @Test
    void badArgumentsAreClearErrors_C7() {
        IllegalArgumentException blank = assertThrows(IllegalArgumentException.class,
                () -> issuer.acquire(" ", "a", TTL));
        assertTrue(blank.getMessage().contains("resource"), blank.getMessage());
        assertThrows(IllegalArgumentException.class, () -> issuer.acquire(resource, "a", Duration.ZERO));
        SQLException notJdbc = assertThrows(SQLException.class, () -> TokenIssuer.forUrl("postgres://x", null));
        assertEquals(FencingSqlState.CONFIGURATION, notJdbc.getSQLState());
    }

    @Test
    void craftedResourceNamesAreRefusedByTheIssuerAndTheCommand_C8() throws Exception {
        Lease held = issuer.acquire(resource, "a", TTL);
        String before = tables();
        Path marker = Files.createTempDirectory("fencing-crafted").resolve("ran");
        for (String crafted : List.of("x\\' OR true --", "v' OR 'a'='a", "a\\", "caf\u00e9", "two words",
                "x".repeat(201))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> issuer.acquire(crafted, "a", TTL), crafted);
            assertTrue(e.getMessage().contains("resource name"), e.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> issuer.renew(new Lease(crafted, "a", held.token(), null), TTL), crafted);
            assertThrows(IllegalArgumentException.class,
                    () -> issuer.release(new Lease(crafted, "a", held.token(), null)), crafted);
            for (String command : List.of("acquire", "exec")) {
                List<String> args = new ArrayList<>(List.of(command));
                args.addAll(db.cliDb());
                args.addAll(List.of("--resource", crafted, "--holder", "a", "--ttl", "30s"));
                if (command.equals("exec")) {
                    args.addAll(List.of("--", "sh", "-c", "touch '" + marker + "'"));
                }
                StringWriter err = new StringWriter();
                int code = FencingCli.run(new PrintWriter(new StringWriter()),
                        new PrintWriter(err, true), args.toArray(new String[0]));
                assertEquals(64, code, command + " " + crafted + ": " + err);
                assertTrue(err.toString().contains("resource name"), err.toString());
            }
        }
        assertFalse(Files.exists(marker), "exec never ran its command");
        assertEquals(before, tables(), "the lease and epoch tables are unchanged");
    }

    /** The lease and epoch tables as the database holds them. */
    private String tables() throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = DriverManager.getConnection(db.raw); Statement s = c.createStatement()) {
            for (String sql : List.of("SELECT resource, holder, issued FROM " + db.lease + " ORDER BY resource",
                    "SELECT resource, epoch FROM " + db.epoch + " ORDER BY resource")) {
                try (ResultSet rs = s.executeQuery(sql)) {
                    while (rs.next()) {
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            out.append(rs.getString(i)).append(' ');
                        }
                        out.append('\n');
                    }
                }
            }
        }
        return out.toString();
    }

    private LeaseStatus statusOf(String name) throws SQLException {
        return issuer.status().stream().filter(s -> s.resource().equals(name)).findFirst().orElseThrow();
    }
}
