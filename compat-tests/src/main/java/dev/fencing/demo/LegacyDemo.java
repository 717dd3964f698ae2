package dev.fencing.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingRefusedException;

import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The demo behind the README's first command: two owners of the resource {@code accounts} share a legacy DAO
 * through HikariCP on embedded H2. The old owner pauses (think GC), loses its lease, and its late write is
 * fenced; the new owner's writes stand.
 */
public final class LegacyDemo {
    private LegacyDemo() {
    }

    public static void main(String[] args) throws Exception {
        // The driver logs each refusal and epoch advance (logger dev.fencing.jdbc); one indented line each, so they
        // read as part of the step that caused them (java.util.logging's default takes two lines per record).
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "   [driver log] %5$s%n");
        }
        HikariConfig config = new HikariConfig();
        // The only change a legacy application makes: "jdbc:h2:..." becomes "jdbc:fencing:h2:...".
        config.setJdbcUrl("jdbc:fencing:h2:mem:demo;DB_CLOSE_DELAY=-1;fencing.schema=create;fencing.resource=accounts");
        config.setMaximumPoolSize(4);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            AccountDao dao = new AccountDao(pool);
            step("1. Owner A acquires the lease on 'accounts' and gets fencing token 1.");
            try (Fencing.Scope a = Fencing.scope("accounts", 1)) {
                dao.createSchema();
                dao.open(1, "A", 100);
            }
            step("   A opened account 1: " + dao.describe(1));

            CountDownLatch leaseLost = new CountDownLatch(1);
            CountDownLatch lateWriteDone = new CountDownLatch(1);
            Thread ownerA = new Thread(() -> {
                try (Fencing.Scope a = Fencing.scope("accounts", 1)) {
                    step("2. A checks its lease (still valid), then pauses for a long GC before writing...");
                    leaseLost.await(10, TimeUnit.SECONDS);
                    step("5. A wakes up and sends its delayed write with token 1.");
                    dao.setBalance(1, "A", 0);
                    step("   A's write went through: THIS SHOULD NOT HAPPEN");
                } catch (FencingRefusedException e) {
                    step("   Refused by the database (SQLState " + e.getSQLState() + "): " + e.getMessage());
                } catch (SQLException | InterruptedException e) {
                    step("   unexpected: " + e);
                } finally {
                    lateWriteDone.countDown();
                }
            }, "owner-A");
            ownerA.start();
            Thread.sleep(200);

            step("3. A's lease expires. Owner B acquires 'accounts' and gets token 2.");
            try (Fencing.Scope b = Fencing.scope("accounts", 2)) {
                dao.setBalance(1, "B", 250);
                step("4. B writes with token 2: " + dao.describe(1));
                leaseLost.countDown();
                lateWriteDone.await(10, TimeUnit.SECONDS);
                dao.setBalance(1, "B", 300);
                step("6. B writes again with the same token 2 (equal tokens stay valid): " + dao.describe(1));
            }
            step("7. Final state: " + dao.describe(1) + ". A's stale write changed nothing.");
            try {
                dao.setBalance(1, "nobody", -1);
            } catch (FencingRefusedException e) {
                step("8. A write with no token at all is refused too (SQLState " + e.getSQLState() + ").");
            }
        }
    }

    private static void step(String line) {
        System.out.println(line);
    }
}
