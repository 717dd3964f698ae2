package dev.fencing.curator;

import dev.fencing.jdbc.HeldTokens;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/curator.md prints the examples of {@link CuratorExample} as they are compiled, and they run. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CuratorDocTest {
    private static final Path DOC = Path.of("../../docs/curator.md");
    private static final Path SOURCE = Path.of("src/test/java/dev/fencing/curator/CuratorExample.java");

    @Test
    void thePagePrintsTheCompiledExamples() throws Exception {
        String page = Files.readString(DOC);
        for (String name : List.of("mutex", "latch")) {
            String snippet = snippet(Files.readString(SOURCE), name);
            assertTrue(page.contains("```java\n" + snippet + "```\n"),
                    "docs/curator.md must show the '" + name + "' example exactly as compiled:\n" + snippet);
        }
    }

    @Test
    void theExamplesRun() throws Exception {
        String db = "curatordoc";
        try (Connection keep = DriverManager.getConnection("jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1");
             Statement s = keep.createStatement();
             TestingServer server = new TestingServer(true);
             CuratorFramework client = Zk.client(server.getConnectString())) {
            s.execute("CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, item VARCHAR(40))");
            String url = "jdbc:fencing:h2:mem:" + db + ";DB_CLOSE_DELAY=-1;fencing.schema=create";
            DriverManager.getConnection(url + ";fencing.resource=orders").close(); // declares 'orders' (the doc's step)
            CuratorExample.placeOrder(client, url);
            CuratorExample.placeOrder(client, url);

            CuratorExample.lead(client, () -> {
                try (Connection c = DriverManager.getConnection(url
                        + ";fencing.resource=orders;fencing.token.source=dev.fencing.jdbc.HeldTokens");
                     Statement w = c.createStatement()) {
                    w.executeUpdate("INSERT INTO orders (item) VALUES ('from the leader')");
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(HeldTokens.held("orders").isEmpty(), "the hold ended with the leadership");
            List<String> items = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT item FROM orders ORDER BY id")) {
                while (rs.next()) {
                    items.add(rs.getString(1));
                }
            }
            assertEquals(List.of("book", "book", "from the leader"), items);
            s.execute("SHUTDOWN");
        }
    }

    /** The lines between {@code // doc:NAME begin} and {@code // doc:NAME end}, their common indentation removed. */
    static String snippet(String source, String name) {
        String[] lines = source.split("\n", -1);
        List<String> body = new ArrayList<>();
        boolean in = false;
        for (String line : lines) {
            if (line.trim().equals("// doc:" + name + " end")) {
                break;
            }
            if (in) {
                body.add(line);
            }
            if (line.trim().equals("// doc:" + name + " begin")) {
                in = true;
            }
        }
        int indent = body.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder out = new StringBuilder();
        for (String line : body) {
            out.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
        }
        return out.toString();
    }
}
