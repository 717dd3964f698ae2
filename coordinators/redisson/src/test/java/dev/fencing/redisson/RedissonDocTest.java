package dev.fencing.redisson;

import dev.fencing.jdbc.FencingDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/redisson.md prints the example of {@link RedissonExample} as it is compiled, and it runs. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedissonDocTest {
    private static final Path DOC = Path.of("../../docs/redisson.md");
    private static final Path SOURCE = Path.of("src/test/java/dev/fencing/redisson/RedissonExample.java");

    @Test
    void thePagePrintsTheCompiledExample() throws Exception {
        String snippet = snippet(Files.readString(SOURCE), "lock");
        assertTrue(Files.readString(DOC).contains("```java\n" + snippet + "```\n"),
                "docs/redisson.md must show the example exactly as compiled:\n" + snippet);
    }

    @Test
    void theExampleRunsAndRecoversFromALostCounter() throws Exception {
        String lockName = RedisFixture.lockName();
        RedissonClient redisson = RedisFixture.client();
        try (RedisFixture.Judge db = new RedisFixture.Judge()) {
            db.execute("ALTER TABLE orders ADD COLUMN item VARCHAR(40)");
            FencingDataSource dataSource = db.fenced();
            RedissonExample.placeOrder(redisson, dataSource, lockName);
            RedissonExample.placeOrder(redisson, dataSource, lockName);
            redisson.getKeys().delete(RedissonFencing.COUNTER_PREFIX + ":" + lockName);     // Redis lost it
            assertThrows(CounterWentBackException.class,
                    () -> RedissonExample.placeOrder(redisson, dataSource, lockName));
            RedissonExample.placeOrder(redisson, dataSource, lockName);
            assertEquals(3, db.rows().size());
            assertEquals(2 + 1_000_000 + 1, db.mark("orders"));
        } finally {
            RedisFixture.deleteKeys(redisson, lockName);
            redisson.shutdown();
        }
    }

    /** The lines between {@code // doc:NAME begin} and {@code // doc:NAME end}, their common indentation removed. */
    static String snippet(String source, String name) {
        List<String> body = new ArrayList<>();
        boolean in = false;
        for (String line : source.split("\n", -1)) {
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
