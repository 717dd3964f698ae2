package dev.fencing.jdbc.issuer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Properties;

/**
 * A job run as a child process by {@link H2DurabilityTest}: acquires a lease from the issuer, commits one fenced
 * write with its token, acknowledges both on standard output and waits to be killed.
 *
 * <p>Arguments: raw URL, epoch table, lease table, data table, resource.
 */
public final class AcknowledgingJob {
    private AcknowledgingJob() {
    }

    public static void main(String[] args) throws Exception {
        Properties tables = new Properties();
        tables.setProperty("fencing.table", args[1]);
        tables.setProperty("fencing.lease.table", args[2]);
        try (TokenIssuer issuer = TokenIssuer.forUrl(args[0], tables)) {
            Lease lease = issuer.acquire(args[4], "crashing", Duration.ofMinutes(5));
            String fenced = "jdbc:fencing:" + args[0].substring("jdbc:".length()) + ";fencing.table=" + args[1]
                    + ";fencing.lease.table=" + args[2] + ";fencing.resource=" + args[4] + ";fencing.token="
                    + lease.token();
            try (Connection c = DriverManager.getConnection(fenced);
                 PreparedStatement ps = c.prepareStatement("INSERT INTO " + args[3]
                         + " (token, seq, writer) VALUES (?, 1, 'acknowledged')")) {
                ps.setLong(1, lease.token());
                ps.executeUpdate();
                System.out.println("ack " + lease.token());
                System.out.flush();
                Thread.sleep(60_000);
            }
        }
    }
}
