package dev.fencing.jdbc.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A token file is read again at every use, whatever its size and time say (SPEC C6). */
class TokenFileTest {
    @TempDir
    Path dir;

    @Test
    void aRewriteThatKeepsSizeAndTimeIsSeenAtTheNextRead_C6() throws Exception {
        Path path = dir.resolve("token");
        TokenFile file = new TokenFile(path);
        assertNull(file.read(), "a missing file is no text, not an error");
        Files.writeString(path, "41\n");
        FileTime time = Files.getLastModifiedTime(path);
        assertEquals("41\n", file.read());
        Files.writeString(path, "42\n");
        Files.setLastModifiedTime(path, time);
        assertEquals("42\n", file.read(), "as cp -p would leave it: same size, same time");
        assertEquals(path, file.path());
    }

    @Test
    void theTextIsReadAsUtf8() throws Exception {
        Path path = dir.resolve("token");
        Files.write(path, "\u2003\u0037".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertEquals("\u2003\u0037", new TokenFile(path).read());
    }
}
