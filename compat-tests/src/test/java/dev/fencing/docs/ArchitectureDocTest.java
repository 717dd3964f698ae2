package dev.fencing.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * docs/architecture.md stays true to the code: every class it names (a word in CamelCase, in backquotes or in the
 * path of one statement) is a class, interface, record or enum of the sources, and every {@code Class.method} it
 * names is a method of that class (issue 27: it had drifted, naming a method that was gone).
 */
class ArchitectureDocTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** {@code Name} or {@code Name.member}, a type name being an upper-case letter, then lower-case, then more. */
    private static final Pattern NAME = Pattern.compile(
            "(?<![\\w.$<*-])([A-Z][a-z][A-Za-z0-9]*)(?:\\.([a-z][A-Za-z0-9]*))?(?![\\w*<>-])");
    /** Words that start with a capital in the prose and name no class. */
    private static final List<String> PROSE = List.of("An", "Each", "Every", "Everything", "Nothing", "The", "This",
            "Java", "Maven", "JDBC", "Where", "What", "Which", "Settings", "Dialect", "PostgreSQL", "MariaDB", "Packages",
            "Architecture", "Refusal", "Connector", "How", "Other", "Its", "It", "When", "For", "Is", "If", "One",
            "In", "On", "As", "And", "Or", "But", "Who", "Why", "With", "Without", "From", "To", "By");

    /** A {@code java.sql} or {@code java.lang} type, which the docs name as the JDK's. */
    private static boolean jdkType(String name) {
        for (String pkg : List.of("java.sql.", "java.lang.")) {
            try {
                Class.forName(pkg + name);
                return true;
            } catch (ClassNotFoundException notThere) {
                // next
            }
        }
        return false;
    }

    @Test
    void everyClassAndMethodTheArchitectureNamesExists() throws IOException {
        String doc = Files.readString(ROOT.resolve("docs/architecture.md"));
        List<String> sources = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(p -> p.toString().endsWith(".java") && !p.toString().contains("/.git/")
                    && (p.toString().contains("/src/") || p.toString().contains("/generated-sources/")))
                    .forEach(p -> {
                        try {
                            sources.add(Files.readString(p));
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
        }
        TreeSet<String> missing = new TreeSet<>();
        int checked = 0;
        Matcher m = NAME.matcher(doc);
        while (m.find()) {
            String type = m.group(1);
            String member = m.group(2);
            if (PROSE.contains(type) || jdkType(type)) {
                continue;
            }
            if ("java".equals(member)) {
                member = null; // a file name: Name.java
            }
            Pattern declaration = Pattern.compile("\\b(class|interface|record|enum) " + type + "\\b");
            List<String> declaring = sources.stream().filter(s -> declaration.matcher(s).find()).toList();
            if (declaring.isEmpty()) {
                missing.add(type);
                continue;
            }
            checked++;
            Pattern method = Pattern.compile("\\b" + member + "\\s*\\(");
            if (member != null && declaring.stream().noneMatch(s -> method.matcher(s).find())) {
                missing.add(type + "." + member);
            }
        }
        assertEquals(new TreeSet<>(), missing, "names in docs/architecture.md that the sources do not have ("
                + checked + " found)");
    }
}
