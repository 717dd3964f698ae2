package dev.fencing.jdbc;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Each SQLState the driver raises or recognises is named once, in {@link FencingSqlState} (the fence's own) or
 * {@code dev.fencing.jdbc.audit.SqlStates} (the others): a state written as a literal elsewhere is a second copy of
 * a rule, which drifts (issue 27). Reads the driver's main sources.
 */
class SqlStateLiteralsTest {
    /** A five-character SQLState literal: two class characters, three subclass characters, upper case or digits. */
    private static final Pattern STATE = Pattern.compile("\"([0-9A-Z]{2}[0-9A-Z]{3})\"");
    private static final List<String> TABLES = List.of("FencingSqlState.java", "SqlStates.java");

    @Test
    void sqlStatesAreWrittenOnlyInTheirTables() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                if (TABLES.contains(file.getFileName().toString())) {
                    continue;
                }
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    Matcher m = STATE.matcher(lines.get(i));
                    while (m.find()) {
                        String literal = m.group(1);
                        if (literal.matches("[0-9]{2}[0-9A-Z]{3}|ZF[0-9A-Z]{3}|[0-9]{2}P[0-9]{2}")) {
                            found.add(file + ":" + (i + 1) + " " + literal);
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), found, "SQLState literals outside FencingSqlState and SqlStates");
    }
}
