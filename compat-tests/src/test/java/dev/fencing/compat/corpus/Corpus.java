package dev.fencing.compat.corpus;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The compatibility corpus of one database: feature groups of statements written for this project, read from
 * {@code corpus/<database>/<group>.sql} on the test class path. In a file, statements are separated by blank
 * lines; a block made only of {@code --} comment lines is a note, not a statement.
 */
record Corpus(String database, List<Group> groups) {
    /** One feature group: its name and its statements, run in order on fresh twin databases. */
    record Group(String name, List<String> statements) {
    }

    static Corpus load(String database, List<String> groupNames) throws IOException {
        List<Group> groups = new ArrayList<>();
        for (String name : groupNames) {
            String resource = "/corpus/" + database + "/" + name + ".sql";
            try (InputStream in = Corpus.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IOException("corpus group missing on the class path: " + resource);
                }
                groups.add(new Group(name, statements(new String(in.readAllBytes(), StandardCharsets.UTF_8))));
            }
        }
        return new Corpus(database, groups);
    }

    static List<String> statements(String file) {
        List<String> statements = new ArrayList<>();
        for (String block : file.replace("\r\n", "\n").split("\n[ \t]*\n")) {
            String trimmed = block.strip();
            boolean note = true;
            for (String line : trimmed.split("\n")) {
                note &= line.strip().startsWith("--");
            }
            if (!trimmed.isEmpty() && !note) {
                statements.add(trimmed);
            }
        }
        return statements;
    }

    int size() {
        return groups.stream().mapToInt(g -> g.statements().size()).sum();
    }
}
