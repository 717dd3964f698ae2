package dev.fencing.sql;

import dev.fencing.sql.Analysis.Fact;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The facts of one statement the driver's refusals need besides its kind (see {@link Analysis.Fact}), read from its
 * tokens, so that comments and spacing between words read as the server reads them: a change of the MariaDB client
 * character set, {@code PREPARE TRANSACTION}, a lock, a name of the fence's own tables.
 */
final class StatementFacts {
    /** Character sets in which every quote, backslash and backtick is a byte of its own, as the lexer reads them. */
    private static final Set<String> SAFE_CHARSETS = Set.of("utf8mb4", "utf8mb3", "utf8", "latin1", "ascii");
    /** MariaDB/MySQL variables that say how the server decodes the client's bytes (as folded names). */
    private static final Set<String> CHARSET_VARIABLES = Set.of("character_set_client", "character_set_connection",
            "collation_connection");
    private static final Set<String> SCOPES = Set.of("GLOBAL", "SESSION", "LOCAL", "PERSIST", "PERSIST_ONLY");

    private StatementFacts() {
    }

    /** Whether the server decodes a client's bytes in {@code charset} (a name) as the driver's lexer reads them. */
    static boolean isSafeCharset(String charset) {
        return SAFE_CHARSETS.contains(charset.toLowerCase(Locale.ROOT));
    }

    /** The facts of {@code part} as {@link Fact} bits; {@code protectedTables} are folded own names. */
    static int of(Part part, Dialect dialect, List<String> protectedTables) {
        List<Token> tokens = part.tokens();
        int facts = 0;
        if (dialect == Dialect.MARIADB && changesClientCharset(part)) {
            facts |= Fact.CHANGES_CLIENT_CHARSET.bit();
        }
        if (KeywordClassifier.word(tokens, 0).equals("PREPARE") && KeywordClassifier.word(tokens, 1).equals("TRANSACTION")) {
            facts |= Fact.PREPARES_TRANSACTION.bit();
        }
        if (locks(tokens)) {
            facts |= Fact.LOCKS_ROWS.bit();
        }
        if (dialect == Dialect.MARIADB && takesTableLocks(tokens)) {
            facts |= Fact.TAKES_TABLE_LOCKS.bit();
        }
        if (readsRelations(tokens)) {
            facts |= Fact.READS_RELATIONS.bit();
        }
        for (Token token : tokens) {
            if (Names.isName(token) && protectedTables.contains(Names.fold(part.source(token)))) {
                facts |= Fact.NAMES_PROTECTED_TABLE.bit();
                break;
            }
        }
        return facts;
    }

    /** Words that begin a query or join; see {@link Analysis#readsRelations()}. */
    private static final Set<String> QUERY_WORDS = Set.of("SELECT", "TABLE", "WITH", "JOIN", "USING");

    /** See {@link Analysis#readsRelations()}: any query word, or a {@code FROM} that is not DELETE's or COPY's own. */
    private static boolean readsRelations(List<Token> tokens) {
        String first = KeywordClassifier.word(tokens, 0);
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (token.kind() != Token.Kind.WORD) {
                continue;
            }
            String word = token.upper();
            if (QUERY_WORDS.contains(word)
                    || word.equals("FROM") && !(i == 1 && first.equals("DELETE")) && !first.equals("COPY")) {
                return true;
            }
        }
        return false;
    }

    /**
     * MariaDB/MySQL's {@code LOCK TABLE[S] ...} (also {@code LOCK TABLES ... WRITE CONCURRENT}), and {@code FLUSH}
     * with {@code LOCK} or {@code EXPORT} ({@code FLUSH TABLES t WITH READ LOCK}, {@code FLUSH TABLES t FOR EXPORT}),
     * which hold their locks until {@code UNLOCK TABLES}.
     */
    private static boolean takesTableLocks(List<Token> tokens) {
        String first = KeywordClassifier.word(tokens, 0);
        if (first.equals("LOCK")) {
            String second = KeywordClassifier.word(tokens, 1);
            return second.equals("TABLE") || second.equals("TABLES");
        }
        return first.equals("FLUSH") && KeywordClassifier.containsWord(tokens, "LOCK", "EXPORT");
    }

    /** {@code LOCK} anywhere, or {@code FOR} followed by {@code UPDATE}, {@code SHARE}, {@code NO KEY UPDATE}, {@code KEY SHARE}. */
    private static boolean locks(List<Token> tokens) {
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).is("LOCK")) {
                return true;
            }
            if (tokens.get(i).is("FOR")) {
                String next = KeywordClassifier.word(tokens, i + 1);
                String after = KeywordClassifier.word(tokens, i + 2);
                if (next.equals("UPDATE") || next.equals("SHARE") || next.equals("KEY") && after.equals("SHARE")
                        || next.equals("NO") && after.equals("KEY") && KeywordClassifier.word(tokens, i + 3).equals("UPDATE")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether a MariaDB/MySQL {@code SET} (also {@code SET STATEMENT ... FOR}) assigns the client's character set
     * anything but a safe one written as one name: each of its comma-separated assignments is read on its own.
     */
    private static boolean changesClientCharset(Part part) {
        List<Token> tokens = part.tokens();
        if (!KeywordClassifier.word(tokens, 0).equals("SET")) {
            return false;
        }
        int from = 1;
        int end = tokens.size();
        if (KeywordClassifier.word(tokens, 1).equals("STATEMENT")) {
            from = 2;
            for (int i = 2; i < tokens.size(); i++) {
                if (tokens.get(i).depth() == 0 && tokens.get(i).is("FOR")) {
                    end = i;
                    break;
                }
            }
        }
        int start = from;
        for (int i = from; i <= end; i++) {
            if (i == end || tokens.get(i).depth() == 0 && tokens.get(i).isPunctuation(',')) {
                if (unsafeAssignment(part, start, i)) {
                    return true;
                }
                start = i + 1;
            }
        }
        return false;
    }

    /** One assignment, tokens {@code [from, to)}: a change of the client's character set to an unsafe one? */
    private static boolean unsafeAssignment(Part part, int from, int to) {
        List<Token> tokens = part.tokens().subList(from, to);
        String first = KeywordClassifier.word(tokens, 0);
        if (first.equals("NAMES")) {
            // NAMES cs [COLLATE collation]
            int length = tokens.size() == 4 && tokens.get(2).is("COLLATE") ? 2 : tokens.size();
            return !safeValue(part, tokens.subList(1, length), false);
        }
        if ((first.equals("CHARACTER") || first.equals("CHAR")) && KeywordClassifier.word(tokens, 1).equals("SET")) {
            return !safeValue(part, tokens.subList(2, tokens.size()), false);
        }
        if (first.equals("CHARSET")) {
            return !safeValue(part, tokens.subList(1, tokens.size()), false);
        }
        int i = 0;
        if (SCOPES.contains(first)) {
            i++;
        } else if (tokens.size() > 1 && tokens.get(0).isPunctuation('@') && tokens.get(1).isPunctuation('@')) {
            i = 2;
            if (SCOPES.contains(KeywordClassifier.word(tokens, 2)) && tokens.size() > 3 && tokens.get(3).isPunctuation('.')) {
                i = 4;
            }
        }
        if (i >= tokens.size() || !Names.isName(tokens.get(i))
                || !CHARSET_VARIABLES.contains(Names.fold(part.source(tokens.get(i))))) {
            return false;
        }
        boolean collation = Names.fold(part.source(tokens.get(i))).startsWith("collation");
        i++;
        if (i + 1 < tokens.size() && tokens.get(i).isPunctuation(':') && tokens.get(i + 1).isPunctuation('=')) {
            i += 2;
        } else if (i < tokens.size() && tokens.get(i).isPunctuation('=')) {
            i++;
        } else {
            return true;
        }
        return !safeValue(part, tokens.subList(i, tokens.size()), collation);
    }

    /** A value of one token naming a safe character set (or, for a collation, one of a safe character set). */
    private static boolean safeValue(Part part, List<Token> value, boolean collation) {
        if (value.size() != 1 || value.get(0).kind() == Token.Kind.MARKER || value.get(0).kind() == Token.Kind.PUNCTUATION) {
            return false;
        }
        String text = part.source(value.get(0));
        char open = text.charAt(0);
        String name = (open == '\'' || open == '"' || open == '`') && text.length() >= 2
                ? text.substring(1, text.length() - 1) : text;
        name = name.toLowerCase(Locale.ROOT);
        if (!collation) {
            return SAFE_CHARSETS.contains(name);
        }
        int underscore = name.indexOf('_');
        return underscore > 0 && SAFE_CHARSETS.contains(name.substring(0, underscore));
    }
}
