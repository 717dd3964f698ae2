package dev.fencing.springintegration;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/spring-integration.md prints the registry and the locked write exactly as {@link SpringIntegrationExample}
 * compiles them ({@link FencedLockRegistryTest} runs them, two owners and a refusal).
 */
class SpringIntegrationDocTest {
    private static final Path DOC = Path.of("../../docs/spring-integration.md");
    private static final Path SOURCE =
            Path.of("src/test/java/dev/fencing/springintegration/SpringIntegrationExample.java");

    @Test
    void thePagePrintsTheCompiledExamples() throws Exception {
        String page = Files.readString(DOC);
        for (String name : List.of("registry", "write")) {
            String snippet = snippet(Files.readString(SOURCE), name);
            assertTrue(page.contains("```java\n" + snippet + "```\n"),
                    "docs/spring-integration.md must show the '" + name + "' example exactly as compiled:\n"
                            + snippet);
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
