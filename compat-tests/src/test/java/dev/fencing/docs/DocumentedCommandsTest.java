package dev.fencing.docs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shell blocks of the docs, run as printed with the {@code fencing} launcher the build makes
 * ({@code distribution/target/fencing}): every {@code # output} line under a command must appear in the output, in
 * order ({@code ...} stands for what changes from run to run). Only the demo's directory is swapped for one of the
 * test's own.
 */
class DocumentedCommandsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path LAUNCHER = ROOT.resolve("distribution/target/fencing/bin/fencing");

    @Test
    void theLauncherRunsAsTheIssuerManualSays(@TempDir Path dir) throws Exception {
        assertTrue(Files.isExecutable(LAUNCHER), "the build makes " + LAUNCHER + " (mvn package)");
        String doc = Files.readString(ROOT.resolve("docs/issuer.md"));
        String get = block(doc, "**Get the command.**");
        assertTrue(get.contains("export PATH=\"$PWD/distribution/target/fencing/bin:$PATH\""), get);
        String tryIt = block(doc, "**Try it**").replace("/tmp/fencing-demo", dir.resolve("demo").toString());
        String script = "cd " + ROOT + "\n" + get.lines().filter(line -> !line.startsWith("mvn "))
                .reduce("", (a, b) -> a + b + "\n") + tryIt;
        String out = bash(script, dir);
        List<String> expected = new ArrayList<>();
        for (String line : tryIt.split("\n")) {
            String text = line.strip();
            if (text.startsWith("# ") && !text.endsWith(":") && !text.endsWith(".") && !text.startsWith("# The ")
                    && !text.startsWith("# Two ") && !text.startsWith("# A token")) {
                expected.add(text.substring(2));
            }
        }
        assertTrue(expected.size() >= 6, expected.toString());
        int at = 0;
        for (String line : expected) {
            String[] pieces = line.split("\\.\\.\\.", -1);
            for (String piece : pieces) {
                int found = out.indexOf(piece.strip(), at);
                assertTrue(found >= 0, "the docs print '" + line + "' but after offset " + at + " the output was:\n"
                        + out.substring(at));
                at = found + piece.strip().length();
            }
        }
    }

    /** The first fenced {@code sh} block after {@code marker}. */
    private static String block(String doc, String marker) {
        int from = doc.indexOf("```sh\n", doc.indexOf(marker)) + 6;
        return doc.substring(from, doc.indexOf("```", from));
    }

    private static String bash(String script, Path dir) throws IOException, InterruptedException {
        Path file = dir.resolve("block.sh");
        Files.writeString(file, script);
        Path log = dir.resolve("block.log");
        ProcessBuilder builder = new ProcessBuilder("bash", file.toString()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith("FENCING_"));
        Process process = builder.start();
        assertTrue(process.waitFor(3, TimeUnit.MINUTES), "the block finished");
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), out);
        return out;
    }
}
