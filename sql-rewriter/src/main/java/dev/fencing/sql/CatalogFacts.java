package dev.fencing.sql;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a statement's tokens say that only the database's catalog can judge (SPEC C9): the names of the functions
 * it may call, how it writes the tables it changes, and whether it only changes data. The driver asks the catalog
 * about these names rather than trusting them.
 */
final class CatalogFacts {
    /**
     * Reported for a function name the tokens cannot spell (a Unicode-escaped identifier {@code U&"..."}): no
     * catalog knows it by its written form, so the driver treats it as a function that may write.
     */
    static final String UNREADABLE = "";

    /** The statements that only change rows of the tables they name. */
    private static final Set<String> DATA_VERBS = Set.of("INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "REPLACE");

    /**
     * MariaDB/MySQL built-ins that report on the session's last statement. Called unquoted and unqualified they are
     * always the built-in: a stored function of the same name is called only as {@code db.name()} (the server warns
     * "has the same name as a native function" when it is created), and no loadable function may take a built-in's
     * name. Asking the catalog about them would be a query between the caller's last statement and the one reading
     * what it left: {@code ROW_COUNT()} then read -1 and {@code FOUND_ROWS()} the catalog's row count (issue 23).
     */
    private static final Set<String> MARIADB_SESSION_FUNCTIONS = Set.of("ROW_COUNT", "FOUND_ROWS", "LAST_INSERT_ID");

    private CatalogFacts() {
    }

    /**
     * The names the statement may call as functions, unquoted, as written (case kept), without schema: every
     * name followed by {@code (}, and on PostgreSQL also every name after a dot, since {@code t.f} there calls
     * {@code f(t)} (attribute notation). When unsure, a name is reported: the catalog says whether it is a function.
     * No word is skipped for looking like a keyword: PostgreSQL calls {@code by()} and {@code join()}, H2
     * {@code BY()} and {@code THEN()} (found by review). Only a table's name right after {@code INTO} and, on
     * PostgreSQL and H2, a number (which their lexers never read as a name) are no calls; on MariaDB a name may
     * start with a digit ({@code 1fX()}).
     */
    /** Exactly {@code SHOW COUNT(*) WARNINGS} or {@code SHOW COUNT(*) ERRORS}, which hold no expression. */
    private static boolean isShowCount(List<Token> tokens) {
        return tokens.size() == 6 && KeywordClassifier.word(tokens, 0).equals("SHOW")
                && KeywordClassifier.word(tokens, 1).equals("COUNT") && tokens.get(2).isPunctuation('(')
                && tokens.get(3).isPunctuation('*') && tokens.get(4).isPunctuation(')')
                && (KeywordClassifier.word(tokens, 5).equals("WARNINGS")
                || KeywordClassifier.word(tokens, 5).equals("ERRORS"));
    }

    static List<String> calledFunctions(Part part, Dialect dialect) {
        List<Token> tokens = part.tokens();
        if (dialect == Dialect.MARIADB && isShowCount(tokens)) {
            // SHOW COUNT(*) WARNINGS / ERRORS: grammar, not a call; asking the catalog about COUNT ran a query of the
            // driver's own that reset the very count the caller asks for (issue 23, under the session fence)
            return List.of();
        }
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (dialect == Dialect.MARIADB && i + 1 < tokens.size() && tokens.get(i + 1).isPunctuation('(')
                    && (token.kind() == Token.Kind.STRING || token.isPunctuation(']'))) {
                // "f"() under ANSI_QUOTES, [f]() under MSSQL: a call of a name the tokens cannot tell (found by review)
                names.add(UNREADABLE);
                continue;
            }
            if (dialect == Dialect.MARIADB && token.is("NEXT") && KeywordClassifier.word(tokens, i + 1).equals("VALUE")
                    && KeywordClassifier.word(tokens, i + 2).equals("FOR")) {
                // NEXT VALUE FOR s is NEXTVAL(s): a write of the sequence (issue 23: it ran as a read, which the
                // server's read-only mode refused)
                names.add("NEXTVAL");
            }
            if (!isName(token)) {
                continue;
            }
            Token previous = i > 0 ? tokens.get(i - 1) : null;
            boolean call = i + 1 < tokens.size() && tokens.get(i + 1).isPunctuation('(');
            if (dialect == Dialect.MARIADB && call) {
                String written = part.source(token);
                for (int c = 0; c < written.length(); c++) {
                    if (written.charAt(c) > 127) {
                        // MariaDB finds routines ignoring case and accents: ŵf() calls wf() (found by review)
                        names.add(UNREADABLE);
                        break;
                    }
                }
                // an Oracle-mode package function pkg.f(): the package is what the catalog knows
                for (int q = i - 1; q >= 1 && tokens.get(q).isPunctuation('.') && isName(tokens.get(q - 1)); q -= 2) {
                    names.add(unquoted(part.source(tokens.get(q - 1))));
                }
            }
            boolean afterDot = previous != null && previous.isPunctuation('.');
            boolean unicodeEscaped = token.kind() == Token.Kind.QUOTED_IDENTIFIER
                    && part.source(token).regionMatches(true, 0, "U&", 0, 2);
            if (unicodeEscaped && (call || afterDot || i + 1 < tokens.size() && tokens.get(i + 1).is("UESCAPE"))) {
                names.add(UNREADABLE);
                continue;
            }
            if (!call && !(afterDot && dialect == Dialect.POSTGRESQL)) {
                continue;
            }
            if (token.kind() == Token.Kind.WORD && (dialect != Dialect.MARIADB && Character.isDigit(token.upper().charAt(0))
                    || !afterDot && previous != null && previous.is("INTO"))) {
                continue;
            }
            if (dialect == Dialect.MARIADB && call && !afterDot && token.kind() == Token.Kind.WORD
                    && MARIADB_SESSION_FUNCTIONS.contains(token.upper())) {
                continue;
            }
            names.add(unquoted(part.source(token)));
        }
        return new ArrayList<>(names);
    }

    /**
     * See {@link Analysis#readNames()}: every name that is not called and not a qualifier ({@code db} in
     * {@code db.v}), its own part unquoted, and on MariaDB every {@code "..."} (a name under {@code ANSI_QUOTES}).
     */
    static List<String> readNames(Part part, Dialect dialect) {
        List<Token> tokens = part.tokens();
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            boolean next = i + 1 < tokens.size();
            if (next && (tokens.get(i + 1).isPunctuation('(') || tokens.get(i + 1).isPunctuation('.'))) {
                continue;
            }
            String source = part.source(token);
            if (isName(token) || dialect == Dialect.MARIADB && token.kind() == Token.Kind.STRING
                    && source.startsWith("\"")) {
                names.add(unquoted(source));
            }
        }
        return new ArrayList<>(names);
    }

    /**
     * Each place the statement names one of {@code targets} (lower-cased own names), as the parts of the name
     * written there ({@code public}, {@code "Audit"}); empty unless every target is named at least once, so a
     * target written some other way is never taken for an exempt table.
     */
    static List<List<String>> targetReferences(Part part, List<String> targets) {
        List<Token> tokens = part.tokens();
        List<List<String>> references = new ArrayList<>();
        Set<String> named = new HashSet<>();
        for (int i = 0; i < tokens.size(); i++) {
            if (!isName(tokens.get(i)) || i > 0 && tokens.get(i - 1).isPunctuation('.')) {
                continue;
            }
            List<String> parts = Names.qualifiedAt(part, i);
            String own = Names.fold(parts.get(parts.size() - 1));
            if (targets.contains(own)) {
                named.add(own);
                references.add(List.copyOf(parts));
            }
        }
        return named.containsAll(targets) ? references : List.of();
    }

    /**
     * Whether the statement only changes rows of the tables it names: INSERT, UPDATE, DELETE, MERGE, upsert (also
     * after a WITH clause, or as a query whose WITH clause changes data) and {@code COPY ... FROM} a file or the
     * client ({@code FROM PROGRAM} runs a command on the server, so it is not). DDL, calls,
     * {@code SELECT ... INTO} and everything else are not.
     */
    static boolean changesDataOnly(Part part) {
        List<Token> tokens = part.tokens();
        String first = KeywordClassifier.word(tokens, 0);
        if (first.equals("COPY")) {
            // COPY ... FROM PROGRAM runs a command on the server: more than a change of the table's rows.
            return tokens.stream().anyMatch(t -> t.depth() == 0 && t.is("FROM"))
                    && tokens.stream().noneMatch(t -> t.depth() == 0 && t.is("PROGRAM"));
        }
        if (DATA_VERBS.contains(first)) {
            return true;
        }
        if (!first.equals("WITH")) {
            return false;
        }
        String verb = null;
        for (Token token : tokens) {
            if (token.depth() != 0 || token.kind() != Token.Kind.WORD) {
                continue;
            }
            if (verb == null && (DATA_VERBS.contains(token.upper()) || token.is("SELECT"))) {
                verb = token.upper();
            } else if (verb != null && token.is("INTO") && verb.equals("SELECT")) {
                return false;
            }
        }
        return verb != null;
    }

    /** See {@link Analysis#castTypes()}; empty on databases other than PostgreSQL. */
    static List<String> castTypes(Part part, Dialect dialect) {
        if (dialect != Dialect.POSTGRESQL) {
            return List.of();
        }
        List<Token> tokens = part.tokens();
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            int type = -1;
            if (token.isPunctuation(':') && i + 2 < tokens.size() && tokens.get(i + 1).isPunctuation(':')
                    && tokens.get(i + 1).start() == token.end()) {
                type = i + 2;
            } else if (token.is("AS") && i + 1 < tokens.size()) {
                type = i + 1;
            } else if (isName(token) && i + 1 < tokens.size() && tokens.get(i + 1).kind() == Token.Kind.STRING) {
                names.add(unquoted(part.source(token))); // a typed literal: t '...'
                continue;
            }
            if (type < 0 || !isName(tokens.get(type))) {
                continue;
            }
            while (type + 2 < tokens.size() && tokens.get(type + 1).isPunctuation('.') && isName(tokens.get(type + 2))) {
                type += 2; // schema.type: the type's own name
            }
            names.add(unquoted(part.source(tokens.get(type))));
        }
        return new ArrayList<>(names);
    }

    private static boolean isName(Token token) {
        return Names.isName(token);
    }

    private static String unquoted(String name) {
        return Names.unquoted(name);
    }
}
