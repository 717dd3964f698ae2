package dev.fencing.sql;

import dev.fencing.sql.Token.Kind;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static dev.fencing.sql.KeywordClassifier.word;

/**
 * MariaDB and MySQL statements read from their tokens before any parser (issue 23): top-level compound statements,
 * which the lexer cannot split as the server does; the statements that would carry work out of the guard's
 * transaction (XA, {@code BINLOG}, starting replication); and SQL-level prepared statements ({@code PREPARE name
 * FROM '...'}, {@code EXECUTE name}, {@code EXECUTE IMMEDIATE '...'}, {@code DEALLOCATE PREPARE}), whose text the
 * driver reads only when it is one plain string literal.
 */
final class MariaDbStatements {
    /**
     * First words of a compound statement the server runs at top level (MariaDB 10.11, measured): {@code BEGIN NOT
     * ATOMIC}, {@code IF}, {@code CASE}, {@code LOOP}, {@code WHILE}, {@code REPEAT}, {@code FOR}, and under
     * {@code sql_mode = ORACLE} {@code BEGIN <statement>} and {@code DECLARE ... BEGIN}. Labels ({@code l: BEGIN
     * ...}, {@code <<l>>}) are refused by the server at top level; they are refused here too.
     */
    private static final Set<String> COMPOUND_STARTS = Set.of("IF", "CASE", "LOOP", "WHILE", "REPEAT", "FOR",
            "DECLARE");
    /** Words after {@code BEGIN} that make it a transaction's start rather than a block. */
    private static final Set<String> BEGIN_TRANSACTION = Set.of("WORK", "TRANSACTION");

    static final String COMPOUND_REASON = "a compound statement (BEGIN NOT ATOMIC ... END, IF, CASE, LOOP, WHILE,"
            + " REPEAT, FOR, an Oracle-mode block): the server runs it as one statement while the driver's lexer ends"
            + " statements at every ';', and it may COMMIT, change the transaction's access mode or CALL a procedure"
            + " that does, after which its writes would run outside the guard's transaction. Put the statements in"
            + " the text one by one, or run the block through the underlying driver: ";

    private MariaDbStatements() {
    }

    /** Whether {@code part} starts a compound statement (or is a labelled one), as the server would read it. */
    static boolean startsCompound(Part part) {
        List<Token> tokens = part.tokens();
        if (tokens.isEmpty()) {
            return false;
        }
        String first = word(tokens, 0);
        if (COMPOUND_STARTS.contains(first)) {
            return true;
        }
        if (first.equals("BEGIN")) {
            // BEGIN, BEGIN WORK: a transaction; anything else a block (BEGIN NOT ATOMIC, Oracle mode's BEGIN <stmt>)
            return tokens.size() > 1 && !BEGIN_TRANSACTION.contains(word(tokens, 1));
        }
        if (tokens.get(0).kind() == Kind.PUNCTUATION && part.source(tokens.get(0)).startsWith("<")) {
            return true; // <<label>> (Oracle mode)
        }
        return tokens.size() > 1 && Names.isName(tokens.get(0)) && tokens.get(1).isPunctuation(':');
    }

    /**
     * Why {@code part} cannot run through the fence whatever the token, or {@code null}: statements whose work would
     * leave the guard's transaction. Measured or documented on MariaDB 10.11.
     */
    static String escapesTheGuard(Part part) {
        List<Token> tokens = part.tokens();
        String first = word(tokens, 0);
        String second = word(tokens, 1);
        if (first.equals("XA") && !second.equals("RECOVER")) {
            return "XA transactions are not fenced: an XA transaction the server prepared outlives the session and"
                    + " any other session may commit it later, after a hand-over (and XA START cannot join the guard's"
                    + " transaction)";
        }
        if (first.equals("BINLOG")) {
            return "BINLOG replays binary-log events, which carry their own transaction boundaries and so commit"
                    + " outside the guard's transaction";
        }
        if (first.equals("START") && (second.equals("SLAVE") || second.equals("REPLICA") || second.equals("ALL"))) {
            return "starting replication starts threads that write in sessions of their own, which no token admits,"
                    + " for as long as they run";
        }
        return null;
    }

    /**
     * What {@code part} is when its tokens alone tell and no parser can, or {@code null}: {@code XA RECOVER} and
     * {@code DO expr} are reads (a stored function they call is asked about like any other, and a stored function
     * cannot commit: error 1422), {@code GET DIAGNOSTICS} reads the session's last diagnostics and runs no query.
     */
    static Analysis readOnlyForm(Part part) {
        List<Token> tokens = part.tokens();
        String first = word(tokens, 0);
        if (first.equals("XA") && word(tokens, 1).equals("RECOVER")) {
            return Analyses.readOnly(1, true);
        }
        if (first.equals("DO") && tokens.size() > 1) {
            return Analyses.readOnly(1, false);
        }
        if (first.equals("GET") && (word(tokens, 1).equals("DIAGNOSTICS")
                || (word(tokens, 1).equals("CURRENT") || word(tokens, 1).equals("STACKED"))
                && word(tokens, 2).equals("DIAGNOSTICS"))) {
            return Analyses.sessionSetting(1, false);
        }
        return null;
    }

    /** {@code PREPARE name FROM source}: the name ({@link #statementName}) and the literal's text, or null. */
    record Prepare(String name, String literal) {
    }

    /** {@code PREPARE name FROM ...}, or {@code null} for any other statement. */
    static Prepare prepare(Part part) {
        List<Token> tokens = part.tokens();
        if (!word(tokens, 0).equals("PREPARE") || tokens.size() < 4 || !word(tokens, 2).equals("FROM")) {
            return null;
        }
        return new Prepare(statementName(part, 1), tokens.size() == 4 ? literal(part, tokens.get(3)) : null);
    }

    /** {@code DEALLOCATE PREPARE name} or {@code DROP PREPARE name}: the name ({@link #statementName}), else null. */
    static String deallocated(Part part) {
        List<Token> tokens = part.tokens();
        String first = word(tokens, 0);
        if ((first.equals("DEALLOCATE") || first.equals("DROP")) && word(tokens, 1).equals("PREPARE")
                && tokens.size() == 3) {
            String name = statementName(part, 2);
            return name == null ? ALL_NAMES : name;
        }
        return null;
    }

    /** Stands for every statement name, where a name cannot be read safely. */
    static final String ALL_NAMES = "*";

    /** {@code EXECUTE name [USING ...]}: the name, or {@link #ALL_NAMES} when it cannot be read; else null. */
    static String executed(Part part) {
        List<Token> tokens = part.tokens();
        if (!word(tokens, 0).equals("EXECUTE") || tokens.size() < 2 || word(tokens, 1).equals("IMMEDIATE")) {
            return null;
        }
        String name = statementName(part, 1);
        boolean plain = tokens.size() == 2 || word(tokens, 2).equals("USING");
        return name == null || !plain ? ALL_NAMES : name;
    }

    /**
     * {@code EXECUTE IMMEDIATE '...' [USING ...]}: the literal's text; {@code ""} for any other source (a variable, an
     * expression, a marker); {@code null} for any other statement.
     */
    static String executedImmediately(Part part) {
        List<Token> tokens = part.tokens();
        if (!word(tokens, 0).equals("EXECUTE") || !word(tokens, 1).equals("IMMEDIATE")) {
            return null;
        }
        boolean plain = tokens.size() == 3 || tokens.size() > 3 && word(tokens, 3).equals("USING");
        String literal = tokens.size() > 2 && plain ? literal(part, tokens.get(2)) : null;
        return literal == null ? "" : literal;
    }

    /**
     * A prepared statement's name as the server compares it (ASCII letters in any case are one name), or
     * {@code null} when it holds a character from U+0080 on (the server's comparison of those is not the driver's
     * to guess) or is not a name.
     */
    private static String statementName(Part part, int at) {
        List<Token> tokens = part.tokens();
        if (at >= tokens.size() || !Names.isName(tokens.get(at))) {
            return null;
        }
        String name = Names.unquoted(part.source(tokens.get(at)));
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) >= 0x80) {
                return null;
            }
        }
        return name.isEmpty() ? null : name.toLowerCase(Locale.ROOT);
    }

    /**
     * The text of a plain {@code '...'} literal as the server reads it, or {@code null}: only a literal without a
     * backslash (whose meaning {@code NO_BACKSLASH_ESCAPES} would change) and without an introducer, a doubled
     * quote read as one.
     */
    private static String literal(Part part, Token token) {
        String source = part.source(token);
        if (token.kind() != Kind.STRING || source.length() < 2 || source.charAt(0) != '\''
                || source.charAt(source.length() - 1) != '\'' || source.indexOf('\\') >= 0) {
            return null;
        }
        return source.substring(1, source.length() - 1).replace("''", "'");
    }
}
