package dev.fencing.jdbc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The option file {@code fencing exec} hands the MySQL-family clients (issue 28). */
class ClientOptionFileTest {
    @TempDir
    Path dir;

    @Test
    void holdsTheInitCommandAfterTheOptionFileNamedBefore() throws Exception {
        Path before = Files.createDirectory(dir.resolve("home"));
        Files.writeString(before.resolve("my.cnf"), "[client]\nuser=job\n");
        ClientOptionFile file = ClientOptionFile.write("orders", 42, Map.of(ClientOptionFile.MYSQL_HOME, before.toString()));
        try {
            Path cnf = file.directory().resolve("my.cnf");
            List<String> lines = Files.readAllLines(cnf);
            assertTrue(lines.contains("!include " + before.resolve("my.cnf")), lines.toString());
            assertEquals("init-command=SET @fencing_resource='orders', @fencing_token=42", lines.get(lines.size() - 1));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cnf)),
                    "the clients ignore a world-writable option file");
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.directory())));
            if (onPath("mariadb")) {
                // what this machine's client reads from it, without connecting
                ProcessBuilder builder = new ProcessBuilder("mariadb", "--print-defaults").redirectErrorStream(true);
                builder.environment().put(ClientOptionFile.MARIADB_HOME, file.directory().toString());
                builder.environment().put(ClientOptionFile.MYSQL_HOME, file.directory().toString());
                Process printed = builder.start();
                String out = new String(printed.getInputStream().readAllBytes());
                assertTrue(printed.waitFor(30, TimeUnit.SECONDS));
                assertTrue(out.contains("--user=job") && out.contains(
                        "--init-command=SET @fencing_resource='orders', @fencing_token=42"), out);
            }
        } finally {
            file.delete();
        }
        assertFalse(Files.exists(file.directory()), "removed when the run ends");
    }

    @Test
    void aResourceNameThatCouldLeaveTheStringIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ClientOptionFile.write("x', @fencing_token=9, @y='", 1,
                Map.of()));
    }

    private static boolean onPath(String program) {
        try {
            return new ProcessBuilder("sh", "-c", "command -v " + program).start().waitFor() == 0;
        } catch (Exception e) {
            return false;
        }
    }
}
