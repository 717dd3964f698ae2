package dev.fencing.sql;

import java.util.List;
import java.util.Set;

/**
 * Reads from a statement's tokens whether it could lift the server's read-only mode for more than the transaction
 * the fence admits, or chain a transaction the fence never admitted (SPEC C10): the session's default access mode
 * ({@code SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE}, {@code SET default_transaction_read_only},
 * MariaDB's {@code SET SESSION TRANSACTION READ WRITE}, {@code transaction_read_only}, {@code tx_read_only}, also in
 * {@code SET STATEMENT ... FOR}), the completion type, and {@code COMMIT}/{@code ROLLBACK ... AND CHAIN}. The driver
 * keeps un-admitted work read-only on the server; these statements would outlive any one token's admission.
 */
final class ReadOnlyLifts {
    /** Server variables that hold the session's access mode, or make a commit open the next transaction. */
    private static final Set<String> VARIABLES = Set.of("DEFAULT_TRANSACTION_READ_ONLY", "TRANSACTION_READ_ONLY",
            "TX_READ_ONLY", "COMPLETION_TYPE");

    private ReadOnlyLifts() {
    }

    /** Why {@code part} cannot run through the fence, or {@code null} when it touches no access mode. */
    static String reason(Part part) {
        List<Token> tokens = part.tokens();
        String first = KeywordClassifier.word(tokens, 0);
        if (CompoundBodies.definesProgram(tokens)) {
            // A trigger, procedure, event or function whose body (or SET clause) sets the access mode would lift it
            // whenever it runs, for the rest of the session and past any admission: found by review, a MariaDB
            // trigger "FOR EACH ROW SET @@session.tx_read_only = 0" fired by one admitted write.
            for (Token token : tokens) {
                String name = name(part, token);
                if (VARIABLES.contains(name)) {
                    return "the stored program sets " + name.toLowerCase(java.util.Locale.ROOT) + " whenever it runs,"
                            + " which the fence keeps (work without a current token is read-only on the server)";
                }
            }
            return readWrite(tokens) ? "the stored program opens read-write work whenever it runs, which only the"
                    + " fence's admission may do" : null;
        }
        if (first.equals("SET") || first.equals("RESET")) {
            for (Token token : tokens) {
                String name = name(part, token);
                if (VARIABLES.contains(name)) {
                    return "it sets " + name.toLowerCase(java.util.Locale.ROOT) + ", which the fence keeps"
                            + " (work without a current token is read-only on the server; commits never chain)";
                }
            }
            String second = KeywordClassifier.word(tokens, 1);
            // LOCAL is MariaDB's other spelling of SESSION (found by review: SET LOCAL TRANSACTION READ WRITE was sent)
            if (first.equals("SET") && (second.equals("SESSION") || second.equals("GLOBAL") || second.equals("LOCAL"))
                    && readWrite(tokens)) {
                return "it makes every later transaction of the session read-write, past any one token's admission";
            }
        }
        if ((first.equals("COMMIT") || first.equals("ROLLBACK") || first.equals("END") || first.equals("ABORT"))
                && chains(tokens)) {
            return "AND CHAIN opens the next transaction in the same access mode, which no token admitted";
        }
        return null;
    }

    /** A word or quoted name, upper-cased and unquoted; empty for anything else. */
    private static String name(Part part, Token token) {
        if (token.kind() == Token.Kind.WORD) {
            return token.upper();
        }
        String quoted = part.source(token);
        if (token.kind() == Token.Kind.QUOTED_IDENTIFIER && quoted.length() >= 2) {
            return quoted.substring(1, quoted.length() - 1).toUpperCase(java.util.Locale.ROOT);
        }
        return "";
    }

    /** Whether the tokens hold {@code READ WRITE}. */
    static boolean readWrite(List<Token> tokens) {
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (tokens.get(i).is("READ") && tokens.get(i + 1).is("WRITE")) {
                return true;
            }
        }
        return false;
    }

    /** Whether the tokens hold {@code READ ONLY}. */
    static boolean readOnly(List<Token> tokens) {
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (tokens.get(i).is("READ") && tokens.get(i + 1).is("ONLY")) {
                return true;
            }
        }
        return false;
    }

    /** {@code AND CHAIN} (not {@code AND NO CHAIN}). */
    private static boolean chains(List<Token> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            if (tokens.get(i).is("CHAIN") && !tokens.get(i - 1).is("NO")) {
                return true;
            }
        }
        return false;
    }
}
