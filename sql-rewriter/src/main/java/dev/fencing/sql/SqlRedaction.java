package dev.fencing.sql;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * SQL text fit for a report: string and numeric literals become {@code ?} and white space runs become one space,
 * so values never reach a log and texts that differ only in their values count as one statement.
 */
public final class SqlRedaction {
    private SqlRedaction() {
    }

    /**
     * {@code sql} without its literal values. Dollar-quoted bodies ({@code DO $$ ... $$}) are code, not values, and
     * stay; comments stay; several statements are joined with {@code "; "}, each once (a batch of one INSERT
     * with different values is one statement).
     */
    public static String withoutLiterals(String sql, Dialect dialect) {
        if (sql == null) {
            return "";
        }
        Set<String> statements = new LinkedHashSet<>();
        for (Part part : SqlLexer.split(sql, dialect)) {
            StringBuilder one = new StringBuilder(part.text().length());
            redactPart(part, one);
            statements.add(one.toString().replaceAll("\\s+", " ").trim());
        }
        return String.join("; ", statements);
    }

    private static void redactPart(Part part, StringBuilder out) {
        String text = part.text();
        List<Token> tokens = part.tokens();
        int copied = 0;
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (!isLiteral(token, text)) {
                continue;
            }
            int end = token.end();
            if (token.kind() == Token.Kind.WORD && i + 2 < tokens.size() && tokens.get(i + 1).isPunctuation('.')
                    && tokens.get(i + 1).start() == end && tokens.get(i + 2).start() == end + 1
                    && isNumber(tokens.get(i + 2), text)) {
                end = tokens.get(i + 2).end();
                i += 2;
            }
            out.append(text, copied, token.start()).append('?');
            copied = end;
        }
        out.append(text, copied, text.length());
    }

    private static boolean isLiteral(Token token, String text) {
        if (token.kind() == Token.Kind.STRING) {
            return text.charAt(token.start()) != '$';
        }
        return isNumber(token, text);
    }

    private static boolean isNumber(Token token, String text) {
        return token.kind() == Token.Kind.WORD && Character.isDigit(text.charAt(token.start()));
    }
}
