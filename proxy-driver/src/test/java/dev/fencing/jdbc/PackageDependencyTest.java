package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver's packages by concern and which may use which (issue 15, docs/architecture.md): the implementation
 * is layered, bottom up, audit, config, guard, wrappers; the tooling (issuer, command line, JUnit extension) uses
 * the public API and the seams of audit, config and guard, never the wrappers. Read from the sources: every
 * {@code dev.fencing.jdbc.<package>.} name outside comments and strings counts, imports and qualified names alike.
 */
class PackageDependencyTest {
    private static final Path SOURCES = Path.of("src/main/java/dev/fencing/jdbc");
    /** "" is the public API package {@code dev.fencing.jdbc}. */
    private static final Map<String, Set<String>> ALLOWED = Map.of(
            "audit", Set.of(""),
            "config", Set.of("", "audit"),
            "guard", Set.of("", "audit", "config"),
            "wrapper", Set.of("", "audit", "config", "guard"),
            "issuer", Set.of("", "audit", "config", "guard"),
            "cli", Set.of("", "audit", "config", "issuer"),
            "junit", Set.of("", "audit"));
    private static final Pattern USE = Pattern.compile("\\bdev\\.fencing\\.jdbc\\.([a-z]+)\\.");
    /** Comments and string literals: names there are words, not uses. */
    private static final Pattern COMMENT = Pattern.compile("(?s)/\\*.*?\\*/|//[^\n]*|\"(?:[^\"\\\\\n]|\\\\.)*\"");

    @Test
    void eachPackageUsesOnlyThePackagesBelowIt() throws IOException {
        List<String> violations = new ArrayList<>();
        Set<String> packages = new TreeSet<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                String own = SOURCES.relativize(file.getParent()).toString().replace('/', '.');
                packages.add(own);
                String code = COMMENT.matcher(Files.readString(file)).replaceAll(" ");
                Matcher use = USE.matcher(code);
                while (use.find()) {
                    String used = use.group(1);
                    if (used.equals(own) || !ALLOWED.containsKey(used) && !used.equals("shaded")) {
                        continue;
                    }
                    if (!own.isEmpty() && !ALLOWED.getOrDefault(own, Set.of()).contains(used)) {
                        violations.add(SOURCES.relativize(file) + " uses dev.fencing.jdbc." + used);
                    }
                }
            }
        }
        packages.remove("");
        assertEquals(new TreeSet<>(ALLOWED.keySet()), packages, "every package of the driver has a rule here");
        assertTrue(violations.isEmpty(), String.join("\n", new TreeSet<>(violations)));
    }

    /**
     * The settings' table (the public API) stands below the implementation that reads it: {@code FencingProperty}
     * parses and checks values without the config package, so the two do not depend on each other (issue 27).
     */
    @Test
    void theSettingsTableUsesNoImplementationPackage() throws IOException {
        String code = COMMENT.matcher(Files.readString(SOURCES.resolve("FencingProperty.java"))).replaceAll(" ");
        Matcher use = USE.matcher(code);
        assertTrue(!use.find(), () -> "FencingProperty uses dev.fencing.jdbc." + use.group(1));
    }
}
