package dev.fencing.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * A script of SQL statements cut where the fence's own lexer ends them ({@code ;} outside strings, quoted names,
 * dollar quotes and comments), so a tool that runs a file statement by statement sends exactly what the guard
 * reads as one statement, each with the line it starts on.
 */
public final class SqlScript {
    /** One statement of a script: its text as written (white space around it removed) and its first line (from 1). */
    public record Statement(String text, int line) {
    }

    private SqlScript() {
    }

    /** The statements of {@code script}, in order, without empty ones (only white space, comments or {@code ;}). */
    public static List<Statement> statements(String script, Dialect dialect) {
        List<Part> parts = SqlLexer.split(script, dialect);
        List<Statement> statements = new ArrayList<>(parts.size());
        int cursor = 0;
        int line = 1;
        for (Part part : parts) {
            int at = script.indexOf(part.text(), cursor);
            int start = at + part.tokens().get(0).start();
            line += count(script, cursor, start);
            statements.add(new Statement(part.text().strip(), line));
            cursor = start;
        }
        return statements;
    }

    private static int count(String text, int from, int to) {
        int lines = 0;
        for (int i = from; i < to; i++) {
            if (text.charAt(i) == '\n') {
                lines++;
            }
        }
        return lines;
    }
}
