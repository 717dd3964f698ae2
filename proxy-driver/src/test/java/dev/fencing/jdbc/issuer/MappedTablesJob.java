package dev.fencing.jdbc.issuer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A job run as a real child process by {@code fencing exec} with one or several {@code --resource}: writes one row to
 * each given table through a {@code jdbc:fencing:} URL, with nothing but what exec put in its environment, and
 * writes what it saw to a file: {@code FENCING_TOKENS}, then per table {@code ok} or the refusal's SQLState.
 *
 * <p>Arguments: fenced URL, output file, tables.
 */
public final class MappedTablesJob {
    private MappedTablesJob() {
    }

    public static void main(String[] args) throws Exception {
        List<String> lines = new ArrayList<>();
        lines.add("tokens=" + System.getenv("FENCING_TOKENS"));
        try (Connection c = DriverManager.getConnection(args[0]); Statement s = c.createStatement()) {
            for (int i = 2; i < args.length; i++) {
                try {
                    s.executeUpdate("INSERT INTO " + args[i] + " VALUES (1)");
                    lines.add(args[i] + " ok");
                } catch (SQLException refused) {
                    lines.add(args[i] + " refused " + refused.getSQLState());
                }
            }
        }
        Files.write(Path.of(args[1]), lines, StandardCharsets.UTF_8);
    }
}
