package dev.fencing.sql;

import dev.fencing.sql.Token.Kind;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Recognises from its first keywords what a statement is when no parser is needed (or none can read it):
 * transaction control, {@code SET fencing.*}, other session settings, plain queries, H2's {@code MERGE ... KEY}
 * upsert, PostgreSQL's {@code COPY}, {@code LOCK}, MariaDB's {@code UNLOCK TABLES} and {@code DROP EVENT}, {@code EXECUTE}, {@code DEALLOCATE}, maintenance and cursor
 * statements, and JDBC call escapes.
 */
final class KeywordClassifier {
    private static final String FENCING_PREFIX = "fencing.";
    private static final Set<String> QUERY_STARTS = Set.of("SELECT", "VALUES", "TABLE", "EXPLAIN");
    private static final Set<String> SESSION_STARTS = Set.of("SET", "RESET", "SHOW", "DISCARD", "DEALLOCATE",
            "LISTEN", "UNLISTEN", "NOTIFY");
    /** Statements that change no table's rows and run no user code: a checkpoint and cursor movement. */
    private static final Set<String> NO_DATA_STARTS = Set.of("CHECKPOINT", "FETCH", "MOVE", "CLOSE");
    /** What {@code REINDEX} rebuilds that PostgreSQL will not rebuild inside a transaction block. */
    private static final Set<String> REINDEX_OUTSIDE_TRANSACTION = Set.of("SCHEMA", "DATABASE", "SYSTEM");
    /**
     * MariaDB/MySQL's {@code RESET} forms that change the server, not the session: binary logs, replication, the
     * query cache, persisted variables.
     */
    private static final Set<String> SERVER_RESETS = Set.of("MASTER", "SLAVE", "REPLICA", "QUERY", "PERSIST",
            "BINARY");
    private static final Set<String> BEGIN_FOLLOWERS = Set.of("WORK", "TRANSACTION", "ISOLATION", "READ", "DEFERRABLE");

    private KeywordClassifier() {
    }

    /** What {@code part} is, or {@code null} when only the parser can tell. */
    static Analysis classify(Part part) {
        List<Token> tokens = part.tokens();
        String first = word(tokens, 0);
        String second = word(tokens, 1);
        TransactionControl control = transactionControl(tokens, first, second);
        if (control != null) {
            return Analyses.transactionControl(control, 1);
        }
        if (first.equals("SET") || first.equals("RESET")) {
            Analysis fencing = fencingSetting(part, first.equals("RESET"));
            if (fencing != null) {
                return fencing;
            }
        }
        if (first.equals("SET") && changesMoreThanTheSession(tokens, second)
                || first.equals("RESET") && SERVER_RESETS.contains(second)) {
            return Analyses.mutation(List.of(), false, 1);
        }
        if (SESSION_STARTS.contains(first)) {
            return Analyses.sessionSetting(1, first.equals("SHOW"));
        }
        if (NO_DATA_STARTS.contains(first)) {
            return Analyses.readOnly(1, first.equals("FETCH"));
        }
        if (first.equals("VACUUM") || first.equals("REINDEX") || first.equals("CLUSTER")
                || first.equals("ALTER") && second.equals("SYSTEM")) {
            return maintenance(tokens, first);
        }
        if (writesAFile(tokens)) {
            return Analyses.mutation(List.of(), false, 1);
        }
        if (QUERY_STARTS.contains(first) && !containsWord(tokens, "INTO")
                && !(first.equals("EXPLAIN") && containsWord(tokens, "ANALYZE", "ANALYSE"))) {
            return Analyses.readOnly(1, true);
        }
        if (first.equals("MERGE") && containsTopLevelWord(tokens, "KEY") && !containsTopLevelWord(tokens, "USING")) {
            return h2MergeKey(part);
        }
        switch (first) {
            case "COPY":
                return copyTable(part);
            case "LOCK":
                return lock(tokens);
            case "LOAD":
                return loadData(part);
            case "HANDLER":
                // MySQL's HANDLER opens, reads and closes a table: it has no form that writes. A function called in
                // its WHERE is asked about like any other.
                return tokens.size() > 2 ? Analyses.readOnly(1, word(tokens, 2).equals("READ")) : null;
            case "UNLOCK":
                // MariaDB/MySQL's UNLOCK TABLES releases the session's table locks (committing when LOCK TABLES was
                // in force, which the server reports): it writes nothing.
                return tokens.size() == 2 && (second.equals("TABLES") || second.equals("TABLE"))
                        ? Analyses.sessionSetting(1, false) : null;
            case "DROP":
                return dropEvent(tokens);
            case "EXECUTE":
            case "EXEC":
                // Runs a statement prepared earlier (or built from a string): what it writes is unknown here.
                return Analyses.mutation(List.of(), true, 1);
            default:
                return isCallEscape(tokens) ? Analyses.callEscape() : null;
        }
    }

    /**
     * PostgreSQL's maintenance commands run user code: {@code REINDEX}, {@code CLUSTER} and {@code VACUUM} (with
     * {@code FULL} or {@code ANALYZE}) evaluate index expressions and predicates, which may call a writing function
     * however it is declared (found by review: an IMMUTABLE wrapper of a writer). They are writes. {@code VACUUM},
     * {@code ALTER SYSTEM}, {@code REINDEX SCHEMA|DATABASE|SYSTEM}, any {@code REINDEX ... CONCURRENTLY} and a
     * {@code CLUSTER} without a table run only outside a transaction block, where no guard can go with them.
     */
    private static Analysis maintenance(List<Token> tokens, String first) {
        boolean outside;
        switch (first) {
            case "VACUUM":
            case "ALTER":
                outside = true;
                break;
            case "REINDEX":
                outside = REINDEX_OUTSIDE_TRANSACTION.contains(word(tokens, afterOptions(tokens)))
                        || containsWord(tokens, "CONCURRENTLY");
                break;
            default:
                int name = afterOptions(tokens);
                outside = (word(tokens, name).equals("VERBOSE") ? name + 1 : name) >= tokens.size();
                break;
        }
        return outside ? Analyses.outsideTransaction() : Analyses.mutation(List.of(), false, 1);
    }

    /** Where a maintenance command's words start after its parenthesized options, if any (past the end if unclosed). */
    private static int afterOptions(List<Token> tokens) {
        if (tokens.size() < 2 || !tokens.get(1).isPunctuation('(')) {
            return 1;
        }
        int closing = InnerStatements.closing(tokens, 1);
        return closing < 0 ? tokens.size() : closing + 1;
    }

    /**
     * PostgreSQL's {@code COPY ... FROM PROGRAM 'cmd'} and {@code COPY ... TO PROGRAM 'cmd'}: the server starts a
     * program, which can start work of its own (a background writer, a client of this database) that outlives any
     * guard's transaction. No token can fence that.
     */
    static boolean runsAProgram(List<Token> tokens) {
        if (!word(tokens, 0).equals("COPY")) {
            return false;
        }
        for (int i = 1; i + 1 < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (token.depth() == 0 && (token.is("FROM") || token.is("TO")) && tokens.get(i + 1).is("PROGRAM")) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code COPY table [(columns)] FROM ...} writes the table; {@code COPY table TO STDOUT} reads it; {@code COPY
     * table TO 'file' | PROGRAM 'cmd'} writes outside the database, which needs a token too. {@code COPY (query)}
     * is found by {@link InnerStatements}; any other shape is left to the parser, which refuses it.
     */
    private static Analysis copyTable(Part part) {
        List<Token> tokens = part.tokens();
        int i = word(tokens, 1).equals("BINARY") ? 2 : 1;
        String table = Names.ownAt(part, i);
        i += Names.lengthAt(part, i);
        if (table == null || i >= tokens.size()) {
            return null;
        }
        if (tokens.get(i).isPunctuation('(')) {
            i = InnerStatements.closing(tokens, i) + 1;
            if (i <= 0 || i >= tokens.size()) {
                return null;
            }
        }
        if (tokens.get(i).is("FROM")) {
            return Analyses.mutation(List.of(table), false, 1);
        }
        if (tokens.get(i).is("TO")) {
            return word(tokens, i + 1).equals("STDOUT") ? Analyses.readOnly(1, false)
                    : Analyses.mutation(List.of(), false, 1);
        }
        return null;
    }

    /**
     * MySQL's {@code LOAD DATA|XML [LOW_PRIORITY|CONCURRENT] [LOCAL] INFILE 'file' [REPLACE|IGNORE] INTO TABLE name
     * ...} writes the table named after {@code INTO TABLE}; any other shape is left to the parser, which refuses it.
     */
    private static Analysis loadData(Part part) {
        List<Token> tokens = part.tokens();
        String what = word(tokens, 1);
        if (!what.equals("DATA") && !what.equals("XML")) {
            return null;
        }
        for (int i = 2; i + 2 < tokens.size(); i++) {
            if (tokens.get(i).is("INTO") && tokens.get(i + 1).is("TABLE")) {
                String table = Names.ownAt(part, i + 2);
                return table == null ? null : Analyses.mutation(List.of(table), false, 1);
            }
        }
        return null;
    }

    /**
     * {@code LOCK [TABLE] names [IN mode MODE] [NOWAIT]} changes no data, like {@code SELECT ... FOR UPDATE}: it
     * passes without a token. Only names and keywords may follow, so nothing else can hide in it.
     */
    private static Analysis lock(List<Token> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (!isName(token) && !token.isPunctuation('.') && !token.isPunctuation(',') && !token.isPunctuation('*')) {
                return null;
            }
        }
        if (tokens.size() < 2) {
            return null;
        }
        // MariaDB/MySQL's LOCK TABLES t WRITE is refused in read-only work: with a token it runs like DDL (SPEC C10).
        return containsWord(tokens, "WRITE") ? Analyses.mutation(List.of(), false, 1) : Analyses.readOnly(1, false);
    }

    /**
     * MariaDB/MySQL's {@code ... INTO OUTFILE|DUMPFILE 'file'}: a query that writes a file on the server, which
     * needs a token like PostgreSQL's {@code COPY ... TO 'file'}.
     */
    private static boolean writesAFile(List<Token> tokens) {
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (tokens.get(i).is("INTO") && (tokens.get(i + 1).is("OUTFILE") || tokens.get(i + 1).is("DUMPFILE"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * A {@code SET} that outlives the session: a server-wide variable ({@code SET GLOBAL}, {@code @@global.},
     * MySQL's {@code PERSIST}), some of which hold SQL every later connection runs ({@code init_connect}), or an
     * account's password or default role (MariaDB/MySQL, H2's {@code SET PASSWORD}): writes of the server's own
     * tables, which need a current token like any other.
     */
    private static boolean changesMoreThanTheSession(List<Token> tokens, String second) {
        return containsWord(tokens, "GLOBAL", "PERSIST", "PERSIST_ONLY", "PASSWORD")
                || second.equals("DEFAULT") && word(tokens, 2).equals("ROLE");
    }

    /**
     * MariaDB/MySQL's {@code DROP EVENT [IF EXISTS] [schema.]name}, which JSqlParser cannot read: DDL, so a write
     * that needs a current token. Any other {@code DROP} is left to the parser.
     */
    private static Analysis dropEvent(List<Token> tokens) {
        if (!word(tokens, 1).equals("EVENT")) {
            return null;
        }
        int i = word(tokens, 2).equals("IF") && word(tokens, 3).equals("EXISTS") ? 4 : 2;
        if (i >= tokens.size() || !isName(tokens.get(i))) {
            return null;
        }
        i++;
        if (i + 1 < tokens.size() && tokens.get(i).isPunctuation('.') && isName(tokens.get(i + 1))) {
            i += 2;
        }
        return i == tokens.size() ? Analyses.mutation(List.of(), false, 1) : null;
    }

    /** A JDBC call escape, {@code {call p(?)}} or {@code {? = call f(?)}}: a procedure call, whatever it becomes. */
    private static boolean isCallEscape(List<Token> tokens) {
        if (tokens.isEmpty() || !tokens.get(0).isPunctuation('{')) {
            return false;
        }
        int i = 1;
        if (i + 1 < tokens.size() && tokens.get(i).kind() == Kind.MARKER && tokens.get(i + 1).isPunctuation('=')) {
            i += 2;
        }
        return word(tokens, i).equals("CALL");
    }

    static boolean isName(Token token) {
        return Names.isName(token);
    }

    private static TransactionControl transactionControl(List<Token> tokens, String first, String second) {
        switch (first) {
            case "BEGIN":
                boolean block = second.equals("NOT") && !word(tokens, 2).equals("DEFERRABLE");
                return !block && (second.isEmpty() || second.equals("NOT") || BEGIN_FOLLOWERS.contains(second))
                        ? begin(tokens) : null;
            case "START":
                return second.equals("TRANSACTION") ? begin(tokens) : null;
            case "COMMIT":
            case "END":
                return TransactionControl.COMMIT;
            case "PREPARE":
                return second.equals("TRANSACTION") ? TransactionControl.COMMIT : null;
            case "ROLLBACK":
            case "ABORT":
                return containsWord(tokens, "TO") ? TransactionControl.ROLLBACK_TO_SAVEPOINT : TransactionControl.ROLLBACK;
            case "SAVEPOINT":
                return TransactionControl.SAVEPOINT;
            case "RELEASE":
                return TransactionControl.RELEASE_SAVEPOINT;
            case "SET":
                // SET GLOBAL TRANSACTION changes every later session's default: a write (changesMoreThanTheSession)
                boolean scoped = second.equals("SESSION") || second.equals("LOCAL");
                String subject = scoped ? word(tokens, 2) : second;
                if (!subject.equals("TRANSACTION") && !(second.equals("SESSION") && subject.equals("CHARACTERISTICS"))) {
                    return null;
                }
                if (ReadOnlyLifts.readOnly(tokens)) {
                    return second.equals("SESSION") ? TransactionControl.SET_SESSION_READ_ONLY
                            : TransactionControl.SET_TRANSACTION_READ_ONLY;
                }
                return !scoped && ReadOnlyLifts.readWrite(tokens) ? TransactionControl.SET_TRANSACTION_READ_WRITE
                        : TransactionControl.SET_TRANSACTION;
            default:
                return null;
        }
    }

    /** {@code BEGIN} or {@code START TRANSACTION}, by the access mode it asks for. */
    private static TransactionControl begin(List<Token> tokens) {
        if (ReadOnlyLifts.readWrite(tokens)) {
            return TransactionControl.BEGIN_READ_WRITE;
        }
        return ReadOnlyLifts.readOnly(tokens) ? TransactionControl.BEGIN_READ_ONLY : TransactionControl.BEGIN;
    }

    /**
     * {@code SET [SESSION|LOCAL] fencing.x = v}, {@code SET fencing.x TO v} or {@code RESET fencing.x}, with
     * {@code fencing.x.<resource>} naming the resource a setting is for; else null.
     * The analysis says whether it was {@code LOCAL}: the driver must not mistake it for a session setting.
     */
    private static Analysis fencingSetting(Part part, boolean reset) {
        List<Token> tokens = part.tokens();
        int i = 1;
        boolean local = !reset && word(tokens, i).equals("LOCAL");
        if (!reset && (word(tokens, i).equals("SESSION") || local)) {
            i++;
        }
        if (!word(tokens, i).equals("FENCING") || i + 2 >= tokens.size() || !tokens.get(i + 1).isPunctuation('.')
                || tokens.get(i + 2).kind() != Kind.WORD) {
            return null;
        }
        String name = FENCING_PREFIX + part.source(tokens.get(i + 2)).toLowerCase(Locale.ROOT);
        i += 3;
        String resource = null;
        if (i + 1 < tokens.size() && tokens.get(i).isPunctuation('.') && Names.isName(tokens.get(i + 1))) {
            // fencing.token.<resource>: the resource exactly as written (a resource name is not folded), unquoted
            resource = Names.unquoted(part.source(tokens.get(i + 1)));
            i += 2;
        }
        if (reset) {
            return i == tokens.size() ? Analyses.fencingSetting(name, resource, null, false) : null;
        }
        if (i < tokens.size() && (tokens.get(i).isPunctuation('=') || tokens.get(i).is("TO"))) {
            i++;
        } else {
            return null;
        }
        return Analyses.fencingSetting(name, resource, value(part, i), local);
    }

    /** The value from token {@code from} on: a quoted string unquoted, anything else as written. */
    private static String value(Part part, int from) {
        List<Token> tokens = part.tokens();
        if (from >= tokens.size()) {
            return "";
        }
        Token only = tokens.get(from);
        if (from == tokens.size() - 1 && (only.kind() == Kind.STRING || only.kind() == Kind.QUOTED_IDENTIFIER)) {
            String quoted = part.source(only);
            char quote = quoted.charAt(0);
            String inner = quoted.substring(1, quoted.length() - 1);
            return inner.replace(String.valueOf(quote) + quote, String.valueOf(quote));
        }
        return part.text().substring(only.start(), tokens.get(tokens.size() - 1).end());
    }

    private static Analysis h2MergeKey(Part part) {
        List<Token> tokens = part.tokens();
        String table = tokens.get(word(tokens, 1).equals("INTO") ? 2 : 1).is("KEY") ? null
                : Names.ownAt(part, word(tokens, 1).equals("INTO") ? 2 : 1);
        List<String> targets = table == null ? List.of() : List.of(table);
        return Analyses.mutation(targets, false, 1);
    }

    static String word(List<Token> tokens, int index) {
        if (index >= tokens.size()) {
            return "";
        }
        Token token = tokens.get(index);
        return token.kind() == Kind.WORD ? token.upper() : "";
    }

    static boolean containsWord(List<Token> tokens, String... words) {
        for (Token token : tokens) {
            for (String word : words) {
                if (token.is(word)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean containsTopLevelWord(List<Token> tokens, String word) {
        for (Token token : tokens) {
            if (token.depth() == 0 && token.is(word)) {
                return true;
            }
        }
        return false;
    }
}
