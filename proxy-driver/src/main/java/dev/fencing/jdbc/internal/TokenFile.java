package dev.fencing.jdbc.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;

/**
 * A file holding the current token, rewritten by a lease agent. Re-read whenever its modification time or size
 * changes, so a new token is in force from the next statement on.
 */
final class TokenFile {
    private final Path path;
    private FileTime readTime;
    private long readSize = -1;
    private String content;

    TokenFile(Path path) {
        this.path = path;
    }

    Path path() {
        return path;
    }

    /** The file's current text, or {@code null} when the file does not exist. */
    synchronized String read() throws IOException {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException missing) {
            content = null;
            readTime = null;
            return null;
        }
        if (!attributes.lastModifiedTime().equals(readTime) || attributes.size() != readSize) {
            content = new String(Files.readAllBytes(path), StandardCharsets.UTF_8);
            readTime = attributes.lastModifiedTime();
            readSize = attributes.size();
        }
        return content;
    }
}
