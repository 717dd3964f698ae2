package dev.fencing.jdbc.issuer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * A maintenance job run as a real child process by the exec tests: writes rows through a {@code jdbc:fencing:}
 * URL with the token and resource that {@code fencing exec} put in its environment (no fencing code of its own),
 * logs each outcome to a file, and makes one late write when it is told to stop (SIGTERM).
 *
 * <p>Arguments: fenced URL, data table, pause between writes in ms, number of writes (0: until stopped), log file.
 */
public final class FencedJob {
    private FencedJob() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String table = args[1];
        long pause = Long.parseLong(args[2]);
        int count = Integer.parseInt(args[3]);
        Path log = Path.of(args[4]);
        long token = Long.parseLong(System.getenv("FENCING_TOKEN"));
        String insert = "INSERT INTO " + table + " (token, seq, writer) VALUES (" + token + ", ?, 'job')";
        Runtime.getRuntime().addShutdownHook(new Thread(() -> log(log, "late " + write(url, insert, -1))));
        log(log, "start " + token);
        for (int seq = 1; count == 0 || seq <= count; seq++) {
            log(log, write(url, insert, seq));
            Thread.sleep(pause);
        }
    }

    private static String write(String url, String insert, int seq) {
        try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement(insert)) {
            ps.setInt(1, seq);
            ps.executeUpdate();
            return "ok " + seq;
        } catch (SQLException e) {
            return "refused " + e.getSQLState() + " " + seq;
        }
    }

    private static synchronized void log(Path log, String line) {
        try {
            Files.writeString(log, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
