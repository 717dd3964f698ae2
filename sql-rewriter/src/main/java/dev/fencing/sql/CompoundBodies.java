package dev.fencing.sql;

import java.util.List;
import java.util.Set;

/**
 * MariaDB and MySQL stored programs whose body is a compound statement ({@code BEGIN ... END} with {@code ;}
 * inside): {@code CREATE} or {@code ALTER} of a procedure, function, trigger, event or package. The driver's lexer
 * ends a statement at every {@code ;}, as a client does, so it cannot tell where such a statement ends; and since
 * the server commits before and after DDL, a write after it in the same text would run without the guard's lock.
 * Such texts are refused with this reason; a body of one statement is guarded like other DDL.
 */
final class CompoundBodies {
    static final String REASON = "a stored program with a BEGIN ... END body (CREATE or ALTER of a PROCEDURE,"
            + " FUNCTION, TRIGGER, EVENT or PACKAGE): the driver does not read compound statements, so it cannot tell"
            + " where this one ends, and whatever follows it would run after the server's implicit commit, without"
            + " the guard's lock. A body of a single statement is guarded like other DDL: ";
    private static final Set<String> PROGRAMS = Set.of("PROCEDURE", "FUNCTION", "TRIGGER", "EVENT", "PACKAGE");
    /** How far into the statement the program's kind may come ({@code CREATE OR REPLACE DEFINER = `u`@`h` ...}). */
    private static final int KIND_WITHIN = 12;

    private CompoundBodies() {
    }

    /**
     * Whether the statement creates or alters a stored program ({@code CREATE [OR REPLACE] [DEFINER = ...]
     * PROCEDURE | FUNCTION | TRIGGER | EVENT | PACKAGE ...}), whatever its body.
     */
    static boolean definesProgram(List<Token> tokens) {
        return !programKind(tokens).isEmpty();
    }

    /**
     * The kind of stored program the statement creates or alters ({@code EVENT}, ...), or empty: the kind must follow
     * the verb, {@code OR REPLACE}, a {@code DEFINER = user} clause (a few tokens, {@code `u`@`h`}) and
     * {@code AGGREGATE} or {@code CONSTRAINT}, so {@code CREATE TABLE event} names no program.
     */
    static String programKind(List<Token> tokens) {
        String verb = KeywordClassifier.word(tokens, 0);
        if (!verb.equals("CREATE") && !verb.equals("ALTER")) {
            return "";
        }
        int i = 1;
        if (KeywordClassifier.word(tokens, i).equals("OR") && KeywordClassifier.word(tokens, i + 1).equals("REPLACE")) {
            i += 2;
        }
        if (KeywordClassifier.word(tokens, i).equals("DEFINER")) {
            // DEFINER = user: the user is a name, a string or CURRENT_USER, maybe @ and a host, maybe ()
            for (int end = Math.min(tokens.size(), i + KIND_WITHIN); i < end; i++) {
                String word = KeywordClassifier.word(tokens, i);
                if (PROGRAMS.contains(word)) {
                    return word;
                }
                if (word.equals("VIEW") || word.equals("SQL")) {
                    return ""; // CREATE DEFINER = u [SQL SECURITY ...] VIEW v AS SELECT event ...
                }
            }
            return "";
        }
        while (KeywordClassifier.word(tokens, i).equals("AGGREGATE") || KeywordClassifier.word(tokens, i).equals("CONSTRAINT")) {
            i++;
        }
        String kind = KeywordClassifier.word(tokens, i);
        return PROGRAMS.contains(kind) ? kind : "";
    }

    /** Whether the text's first statement creates or alters a stored program whose body begins with {@code BEGIN}. */
    static boolean startsOne(List<Part> parts) {
        if (parts.isEmpty()) {
            return false;
        }
        List<Token> tokens = parts.get(0).tokens();
        String verb = KeywordClassifier.word(tokens, 0);
        if (!verb.equals("CREATE") && !verb.equals("ALTER")) {
            return false;
        }
        boolean program = false;
        for (int i = 1; i < tokens.size(); i++) {
            if (!program && i < KIND_WITHIN && PROGRAMS.contains(KeywordClassifier.word(tokens, i))) {
                program = true;
            } else if (program && tokens.get(i).is("BEGIN")) {
                return true;
            }
        }
        return false;
    }
}
