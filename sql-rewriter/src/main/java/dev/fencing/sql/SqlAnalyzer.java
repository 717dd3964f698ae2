package dev.fencing.sql;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.statement.Statement;

/**
 * Classifies SQL text for one dialect and epoch table, caching the result per text in a bounded cache. It only
 * reads the caller's text: the driver sends that text untouched, with the guard ahead of it. Thread-safe; one instance is shared by all connections to the same database.
 */
public final class SqlAnalyzer {
    private static final Analysis NULL_TEXT = Analyses.unguardable("the SQL text is null", 0);
    private static final Analysis EMPTY_TEXT = Analyses.readOnly(0, false);
    /** First words of statements that never make H2 or MariaDB commit on their own. */
    private static final Set<String> PLAIN_STARTS = Set.of("SELECT", "WITH", "VALUES", "TABLE", "INSERT", "UPDATE",
            "DELETE", "MERGE", "REPLACE", "UPSERT", "EXPLAIN", "SHOW");

    private final Dialect dialect;
    private final EpochSql epochSql;
    private final List<String> protectedTables;
    /** The protected tables and the names of the objects that protect the marks, lower-case. */
    private final List<String> protectedNames;
    private final int cacheCapacity;
    private final Map<String, Analysis> cache;
    /** MariaDB/MySQL texts that {@linkplain Analysis#readsByBackslashMode() read by the mode}, read with backslash escapes. */
    private final Map<String, Analysis> withEscapes;
    /** The same texts read without backslash escapes ({@code NO_BACKSLASH_ESCAPES}). */
    private final Map<String, Analysis> withoutEscapes;

    /**
     * @param cacheCapacity how many texts to remember; when full the cache starts over. 0 caches nothing.
     * @throws IllegalArgumentException when {@code cacheCapacity} is negative
     */
    public SqlAnalyzer(Dialect dialect, EpochTable epochTable, int cacheCapacity) {
        this(dialect, epochTable, List.of(), cacheCapacity);
    }

    /**
     * @param alsoProtected tables the driver protects besides the epoch table (the issuer's lease table): a call or
     *                      block whose text names one counts as a write to it
     * @param cacheCapacity how many texts to remember; when full the cache starts over. 0 caches nothing.
     * @throws IllegalArgumentException when {@code cacheCapacity} is negative
     */
    public SqlAnalyzer(Dialect dialect, EpochTable epochTable, List<EpochTable> alsoProtected, int cacheCapacity) {
        if (cacheCapacity < 0) {
            throw new IllegalArgumentException("cache capacity " + cacheCapacity + " is negative");
        }
        this.dialect = dialect;
        this.epochSql = new EpochSql(dialect, epochTable);
        List<String> names = new ArrayList<>();
        names.add(epochTable.simpleName());
        for (EpochTable table : alsoProtected) {
            names.add(table.simpleName());
        }
        this.protectedTables = List.copyOf(names);
        names.addAll(EpochSql.PROTECTION_NAMES);
        this.protectedNames = List.copyOf(names);
        this.cacheCapacity = cacheCapacity;
        this.cache = new ConcurrentHashMap<>(Math.min(cacheCapacity, 1024));
        this.withEscapes = new ConcurrentHashMap<>();
        this.withoutEscapes = new ConcurrentHashMap<>();
    }

    /**
     * Whether {@code sql} holds a {@code ?} that the server reads inside a string, a quoted name or a comment. A
     * driver that puts parameter values into the text itself (MariaDB Connector/J and MySQL Connector/J by default,
     * pgjdbc in simple query mode) reads comments its own way: where it takes such a {@code ?} for a placeholder,
     * the value it puts there becomes SQL the fence never read (found by review: {@code /}{@code *}{@code /} and
     * {@code --} followed by a control character). On MariaDB a {@code ?} inside a plain {@code '...'} literal is
     * no such {@code ?} where both connectors read the text as the server does (see the method's body).
     *
     * @param backslashEscapes the mode the text was read in ({@link Analysis#backslashEscapes()}); {@code null}: the
     *                         dialect's default reading
     */
    public static boolean questionMarkOutsideMarkers(String sql, Dialect dialect, Boolean backslashEscapes) {
        int all = 0;
        for (int i = 0; i < sql.length(); i++) {
            if (sql.charAt(i) == '?') {
                all++;
            }
        }
        if (all == 0) {
            return false;
        }
        int markers = 0;
        // MariaDB/MySQL: a '?' inside a plain '...' literal is read alike by the server and both connectors (MariaDB
        // Connector/J's and MySQL Connector/J's parsers skip '...' strings) where nothing else can put them out of step:
        // no comment start anywhere ('#', '--', '/*': the connectors read comments their own ways), no backslash, no
        // JDBC escape, and no quoted name or "..." holding a quote or a '?'
        boolean plainLiterals = dialect == Dialect.MARIADB && sql.indexOf('\\') < 0 && sql.indexOf('#') < 0
                && !sql.contains("--") && !sql.contains("/*") && sql.indexOf('{') < 0;
        int literal = 0;
        for (Part part : backslashEscapes == null ? SqlLexer.split(sql, dialect)
                : SqlLexer.split(sql, dialect, backslashEscapes)) {
            for (Token token : part.tokens()) {
                String source = part.source(token);
                if (token.kind() == Token.Kind.MARKER) {
                    markers++;
                } else if (source.charAt(0) == '\'' && token.kind() == Token.Kind.STRING) {
                    literal += (int) source.chars().filter(c -> c == '?').count();
                } else if (token.kind() != Token.Kind.WORD && token.kind() != Token.Kind.PUNCTUATION
                        && (source.indexOf('\'') >= 0 || source.indexOf('?') >= 0)) {
                    plainLiterals = false;
                }
            }
        }
        markers += plainLiterals ? literal : 0;
        return markers != all;
    }

    /**
     * MariaDB/MySQL: whether a client character set (its name, as {@code @@character_set_client} reports it) keeps
     * every quote, backslash and backtick a byte of its own, as the lexer reads texts (see
     * {@link Analysis#changesClientCharset()}).
     */
    public static boolean isSafeClientCharset(String charset) {
        return charset != null && StatementFacts.isSafeCharset(charset);
    }

    /**
     * MariaDB/MySQL: what {@code EXECUTE name [USING ...]} is when the connection saw {@code name} prepared as
     * {@code prepared}: that statement, with the functions the {@code EXECUTE} text itself calls (its {@code USING}
     * expressions) added, never an exempt write, and still naming the executed statement.
     */
    public static Analysis executing(Analysis prepared, Analysis execute) {
        Set<String> functions = new LinkedHashSet<>(prepared.calledFunctions());
        functions.addAll(execute.calledFunctions());
        return prepared.toBuilder().catalogFacts(new ArrayList<>(functions), List.of(), false)
                .executes(execute.executedName()).statementCount(1).build();
    }

    /**
     * MariaDB/MySQL: what {@code EXECUTE name} is when the connection saw {@code name} deallocated and nothing
     * prepared under it since: the server holds no statement there and answers with its own error, so it runs no
     * query; with a function call in its {@code USING} expressions it stays refused.
     */
    public static Analysis executingNothing(Analysis execute) {
        return execute.calledFunctions().isEmpty()
                ? Analyses.sessionSetting(1, false).toBuilder().executes(execute.executedName()).build() : execute;
    }

    public Dialect dialect() {
        return dialect;
    }

    public EpochSql epochSql() {
        return epochSql;
    }

    /** What {@code sql} is and how to guard it. Never throws for bad SQL: that is {@link StatementKind#UNGUARDABLE}. */
    public Analysis analyze(String sql) {
        if (sql == null) {
            return NULL_TEXT;
        }
        Analysis cached = cache.get(sql);
        if (cached != null) {
            return cached;
        }
        return remember(cache, sql, analyzeText(sql));
    }

    /**
     * Keeps {@code analysis} of {@code sql} in {@code into} (bounded: a full cache is cleared) and returns the one
     * kept, which another thread may have put first.
     */
    private Analysis remember(Map<String, Analysis> into, String sql, Analysis analysis) {
        if (cacheCapacity == 0) {
            return analysis;
        }
        if (into.size() >= cacheCapacity) {
            into.clear();
        }
        Analysis raced = into.putIfAbsent(sql, analysis);
        return raced == null ? analysis : raced;
    }

    private Analysis analyzeText(String sql) {
        List<Part> parts = SqlLexer.split(sql, dialect);
        boolean clear = SqlLexer.isClear(sql, dialect);
        int facts = facts(sql, parts, clear);
        if (!clear && dialect == Dialect.MARIADB && SqlLexer.isClear(sql, dialect, true)
                && SqlLexer.isClear(sql, dialect, false)) {
            // only the two readings of backslashes disagree: the session's mode decides (analyze(sql, mode))
            facts |= Analysis.Fact.READS_BY_BACKSLASH_MODE.bit();
        }
        return Analyses.withFacts(classifyText(sql, parts, clear), facts);
    }

    /**
     * MariaDB/MySQL: what {@code sql} is in a session whose {@code NO_BACKSLASH_ESCAPES} is as given (the server
     * reports it in every reply's status flags). A text whose strings end at the same places in both modes is
     * {@link #analyze(String)}; one that {@linkplain Analysis#readsByBackslashMode() reads by the mode} is read as
     * the server reads it in that mode, cached per mode, when it is one statement that names no {@code sql_mode}
     * (a statement of a longer text could change the mode for the next, which the server would read otherwise) and
     * neither prepares nor executes SQL from a string: its strings are then values, and the statement is classified
     * from a copy whose strings hold no backslash (the same tokens, which every reading and the parser end alike).
     * The result {@linkplain Analysis#backslashEscapes() says which mode it was read in}; anything else stays
     * refused.
     */
    public Analysis analyze(String sql, boolean noBackslashEscapes) {
        Analysis any = analyze(sql);
        if (!any.readsByBackslashMode()) {
            return any;
        }
        Map<String, Analysis> byMode = noBackslashEscapes ? withoutEscapes : withEscapes;
        Analysis cached = byMode.get(sql);
        if (cached != null) {
            return cached;
        }
        return remember(byMode, sql, analyzeInMode(sql, !noBackslashEscapes));
    }

    private Analysis analyzeInMode(String sql, boolean escapes) {
        List<Part> parts = SqlLexer.split(sql, dialect, escapes);
        String mode = escapes ? "with backslash escapes" : "under NO_BACKSLASH_ESCAPES";
        if (parts.size() != 1) {
            return Analyses.unguardable("a text of several statements whose strings end where the session's sql_mode"
                    + " says (backslashes): a statement could change the mode before the next is read: "
                    + Analyses.excerpt(sql), Math.max(parts.size(), 1));
        }
        Part part = parts.get(0);
        for (Token token : part.tokens()) {
            if (escapes && token.kind() == Token.Kind.STRING && part.source(token).startsWith("\"")
                    && part.source(token).indexOf('\\') >= 0) {
                // under ANSI_QUOTES (which no status flag reports) "..." is a name that a backslash does not escape,
                // so where it ends depends on that mode too (found by review: "a\", wf() AS x #" ran wf())
                return Analyses.unguardable("a \"...\" holding a backslash ends where the session's sql_mode says"
                        + " (ANSI_QUOTES, backslashes): " + Analyses.excerpt(sql), 1);
            }
            if (Names.isName(token) && Names.fold(part.source(token)).contains("sql_mode")) {
                return Analyses.unguardable("a statement whose strings end where the session's sql_mode says"
                        + " (backslashes) names sql_mode: " + Analyses.excerpt(sql), 1);
            }
        }
        String neutral = withoutBackslashes(part, escapes);
        List<Part> neutralParts = SqlLexer.split(neutral, dialect);
        Analysis analysis = SqlLexer.hasExecutableComment(sql, dialect, escapes) || neutralParts.size() != 1
                || neutralParts.get(0).tokens().size() != part.tokens().size() || !SqlLexer.isClear(neutral, dialect)
                ? null : analyzeText(neutral);
        if (analysis == null || analysis.kind() != StatementKind.READ_ONLY && analysis.kind() != StatementKind.MUTATION
                || analysis.preparedName() != null || analysis.executedName() != null
                || !analysis.forgetsPrepared().isEmpty()) {
            return Analyses.unguardable("a statement whose strings end where the session's sql_mode says"
                    + " (backslashes), read " + mode + ", is no plain query or write: " + Analyses.excerpt(sql), 1);
        }
        return analysis.toBuilder().backslashEscapes(escapes).build();
    }

    /**
     * The statement's text with every backslash in its strings (and, read with escapes, the character it escapes)
     * turned into {@code _}: the same tokens, ended at the same places by every reading.
     */
    private static String withoutBackslashes(Part part, boolean escapes) {
        StringBuilder out = new StringBuilder(part.text());
        for (Token token : part.tokens()) {
            if (token.kind() != Token.Kind.STRING) {
                continue;
            }
            for (int i = token.start() + 1; i < token.end() - 1; i++) {
                if (out.charAt(i) == '\\') {
                    out.setCharAt(i, '_');
                    if (escapes && i + 1 < token.end() - 1) {
                        out.setCharAt(++i, '_');
                    }
                }
            }
        }
        return out.toString();
    }

    /**
     * The facts of every statement of the text (see {@link StatementFacts}). Where the tokens are not certain, a
     * protected table's name anywhere in the folded text counts as named.
     */
    private int facts(String sql, List<Part> parts, boolean clear) {
        int facts = 0;
        for (Part part : parts) {
            facts |= StatementFacts.of(part, dialect, protectedTables);
        }
        if (!clear || SqlLexer.hasExecutableComment(sql, dialect)) {
            String folded = Names.foldCase(sql);
            for (String name : protectedTables) {
                if (folded.contains(name)) {
                    facts |= Analysis.Fact.NAMES_PROTECTED_TABLE.bit();
                }
            }
        }
        return facts;
    }

    private Analysis classifyText(String sql, List<Part> parts, boolean clear) {
        if (!clear) {
            return Analyses.unguardable("where its strings or statements end depends on a session setting or the"
                    + " server's version (backslashes in '...' strings, standard_conforming_strings; a letter right"
                    + " after a number; H2's [...] and # in compatibility modes): " + Analyses.excerpt(sql),
                    Math.max(parts.size(), 1));
        }
        if (SqlLexer.hasExecutableComment(sql, dialect)) {
            return Analyses.unguardable("MariaDB runs the content of /*! ... */ comments: " + Analyses.excerpt(sql),
                    Math.max(parts.size(), 1));
        }
        if (dialect == Dialect.MARIADB && CompoundBodies.startsOne(parts)) {
            return Analyses.unguardable(CompoundBodies.REASON + Analyses.excerpt(sql), parts.size());
        }
        if (parts.isEmpty()) {
            return EMPTY_TEXT;
        }
        if (parts.size() == 1) {
            return withCatalogFacts(analyzePart(parts.get(0)), parts.get(0));
        }
        List<Analysis> analyses = new ArrayList<>(parts.size());
        Set<String> functions = new LinkedHashSet<>();
        Set<String> forgets = new LinkedHashSet<>();
        for (Part part : parts) {
            Analysis analysis = analyzePart(part);
            analyses.add(analysis);
            functions.addAll(analysis.calledFunctions());
            functions.addAll(CatalogFacts.calledFunctions(part, dialect));
            forgets.addAll(analysis.forgetsPrepared());
        }
        Analysis combined = Analyses.combine(analyses);
        if (!forgets.isEmpty()) {
            // only a PREPARE that is a text of its own tells the connection what it prepared
            combined = combined.toBuilder().forgetsPrepared(new ArrayList<>(forgets)).build();
        }
        if (combined.kind() == StatementKind.TRANSACTION_CONTROL && !functions.isEmpty()) {
            // A query of the text may call a function that writes (the catalog decides later, for reads only):
            // found by the MariaDB fuzzer, SELECT writing_function(); BEGIN passed as transaction control.
            return Analyses.unguardable("transaction control in one text with a statement that calls a function,"
                    + " which may write: " + Analyses.excerpt(sql), parts.size());
        }
        return Analyses.withCatalogFacts(combined, new ArrayList<>(functions), List.of(), false);
    }

    /** The names in one statement the driver asks the catalog about (SPEC C9). */
    private Analysis withCatalogFacts(Analysis analysis, Part part) {
        boolean dataOnly = analysis.kind() == StatementKind.MUTATION && CatalogFacts.changesDataOnly(part);
        // a carried text's own calls (MariaDB's EXECUTE IMMEDIATE '...') stay beside the outer text's
        Set<String> functions = new LinkedHashSet<>(analysis.calledFunctions());
        functions.addAll(CatalogFacts.calledFunctions(part, dialect));
        Analysis withFacts = Analyses.withCatalogFacts(analysis, new ArrayList<>(functions),
                dataOnly ? CatalogFacts.targetReferences(part, analysis.targetTables()) : List.of(), dataOnly);
        if (dialect == Dialect.MARIADB
                && (analysis.queriesAfterImplicitCommit() || analysis.kind() == StatementKind.READ_ONLY)) {
            // a carried text's own names (EXECUTE IMMEDIATE '...') stay beside the outer text's
            Set<String> names = new LinkedHashSet<>(analysis.readNames());
            names.addAll(CatalogFacts.readNames(part, dialect));
            withFacts = withFacts.toBuilder().readNames(new ArrayList<>(names)).build();
        }
        return dataOnly ? withFacts.toBuilder().castTypes(CatalogFacts.castTypes(part, dialect)).build() : withFacts;
    }

    /**
     * One statement of the text. A mutation that is not a plain data change (DDL, a call, a block, dynamic SQL)
     * and whose text names the epoch table, another protected table or the objects that protect the marks counts
     * as a write to it: a view, an inheritance child, a function or a trigger may otherwise reach those tables
     * under another name (C5, C9).
     */
    private Analysis analyzePart(Part part) {
        String lift = ReadOnlyLifts.reason(part);
        if (lift != null) {
            return Analyses.unguardable(lift + ": " + Analyses.excerpt(part.text()), 1);
        }
        if (dialect == Dialect.MARIADB && CompoundBodies.programKind(part.tokens()).equals("EVENT")) {
            return Analyses.unguardable("an event runs later in the server's event scheduler, in a session of its own"
                    + " that no token admits, so its writes would land after any hand-over: "
                    + Analyses.excerpt(part.text()), 1);
        }
        if (dialect == Dialect.MARIADB) {
            Analysis read = mariaDbPart(part);
            if (read != null) {
                return read;
            }
        }
        Analysis analysis = classifyPart(part);
        if (analysis.kind() == StatementKind.MUTATION
                && (analysis.targetTables().isEmpty() || !CatalogFacts.changesDataOnly(part))) {
            // folded as every table name is (letters a database folds to ASCII ones)
            String text = Names.foldCase(part.text());
            for (String name : protectedNames) {
                String table = protectedTables.contains(name) ? name : protectedTables.get(0);
                if (text.contains(name) && !analysis.targetTables().contains(table)) {
                    List<String> targets = new ArrayList<>(analysis.targetTables());
                    targets.add(table);
                    analysis = Analyses.withTargets(analysis, targets);
                    break;
                }
            }
        }
        if (dialect == Dialect.H2 && analysis.kind() == StatementKind.MUTATION
                && KeywordClassifier.word(part.tokens(), 0).equals("DROP")
                && KeywordClassifier.word(part.tokens(), 1).equals("ALL")
                && !analysis.targetTables().contains(protectedTables.get(0))) {
            // H2's DROP ALL OBJECTS drops the epoch table too, whatever schema holds it.
            List<String> targets = new ArrayList<>(analysis.targetTables());
            targets.add(protectedTables.get(0));
            analysis = Analyses.withTargets(analysis, targets);
        }
        // EXPLAIN's options may be spelled U&"..."; the statement it carries was checked on its own.
        if (analysis.kind() == StatementKind.MUTATION && hasUnicodeEscapedIdentifier(part)
                && !KeywordClassifier.word(part.tokens(), 0).equals("EXPLAIN")) {
            return Analyses.unguardable("a Unicode-escaped identifier (U&\"...\") in a statement that writes: the"
                    + " driver cannot tell whether it names the fence's own tables: " + Analyses.excerpt(part.text()), 1);
        }
        String first = KeywordClassifier.word(part.tokens(), 0);
        if (dialect == Dialect.H2 && first.equals("RUNSCRIPT")) {
            return Analyses.unguardable("RUNSCRIPT runs the statements of a file, which the driver cannot see (they may"
                    + " commit, ending the transaction that holds the guard's lock): " + Analyses.excerpt(part.text()), 1);
        }
        if (dialect == Dialect.H2 && first.equals("SET") && analysis.kind() == StatementKind.SESSION_SETTING
                && !h2SessionSetting(part)) {
            // H2's other SET commands change the database for every session, most of them persistently (a user's
            // password hash, DB_CLOSE_DELAY, REFERENTIAL_INTEGRITY, WRITE_DELAY, ALLOW_LITERALS): writes.
            return Analyses.mutation(List.of(), false, 1);
        }
        if (analysis.kind() == StatementKind.MUTATION && first.equals("CREATE")) {
            String temporary = temporaryTableCreated(part);
            if (temporary != null) {
                analysis = Analyses.createsTemporaryTable(analysis, temporary);
            }
        }
        if (dialect == Dialect.MARIADB && analysis.kind() == StatementKind.MUTATION
                && (first.equals("CALL") || first.equals("EXEC") || analysis.isCallEscape())) {
            // A MariaDB procedure may COMMIT inside (no server setting forbids it), ending the transaction that
            // holds the guard's lock before the rest of the procedure writes.
            return Analyses.unguardable("a MariaDB procedure may COMMIT inside, ending the transaction that holds the"
                    + " guard's lock before the rest of it writes: " + Analyses.excerpt(part.text()), 1);
        }
        if (dialect == Dialect.POSTGRESQL && (first.equals("CALL") || first.equals("DO"))
                && analysis.kind() == StatementKind.MUTATION && !analysis.mayEndTransaction()) {
            // A procedure or DO block may COMMIT inside unless it runs in a transaction block.
            return Analyses.endingTransaction(analysis);
        }
        boolean plain = PLAIN_STARTS.contains(first);
        if (dialect.commitsImplicitly() && !plain && !analysis.mayEndTransaction()
                && (analysis.kind() == StatementKind.MUTATION || analysis.kind() == StatementKind.SESSION_SETTING
                || analysis.kind() == StatementKind.READ_ONLY)) {
            analysis = Analyses.endingTransaction(analysis);
        }
        if (dialect == Dialect.MARIADB && analysis.kind() == StatementKind.MUTATION && queriesAfterCommit(part)) {
            analysis = analysis.toBuilder().facts(analysis.facts() | Analysis.Fact.QUERIES_AFTER_IMPLICIT_COMMIT.bit())
                    .build();
        }
        return analysis;
    }

    /**
     * MariaDB's {@code CREATE [OR REPLACE] TABLE ... SELECT} (not {@code TEMPORARY}): the server commits before it,
     * releasing the guard's lock, and only then runs its query, with whatever functions the query calls (measured on
     * 10.11: a stored function sleeping 3 s in {@code CREATE TABLE x SELECT f()} wrote after another session's
     * advance of the mark had committed).
     */
    private static boolean queriesAfterCommit(Part part) {
        List<Token> tokens = part.tokens();
        if (!KeywordClassifier.word(tokens, 0).equals("CREATE") || KeywordClassifier.containsWord(tokens, "TEMPORARY")
                || !KeywordClassifier.containsWord(tokens, "SELECT")) {
            return false;
        }
        for (int i = 1; i < Math.min(tokens.size(), 5); i++) {
            if (tokens.get(i).is("TABLE")) {
                return true;
            }
        }
        return false;
    }

    /**
     * MariaDB/MySQL statements the driver reads from their tokens alone ({@link MariaDbStatements}), or {@code null}:
     * compound statements and statements whose work leaves the guard's transaction are refused; SQL-level prepared
     * statements are what their text is, where the driver can read it.
     */
    private Analysis mariaDbPart(Part part) {
        if (MariaDbStatements.startsCompound(part)) {
            return Analyses.unguardable(MariaDbStatements.COMPOUND_REASON + Analyses.excerpt(part.text()), 1);
        }
        String escapes = MariaDbStatements.escapesTheGuard(part);
        if (escapes != null) {
            return Analyses.unguardable(escapes + ": " + Analyses.excerpt(part.text()), 1);
        }
        Analysis readOnly = MariaDbStatements.readOnlyForm(part);
        if (readOnly != null) {
            return readOnly;
        }
        MariaDbStatements.Prepare prepare = MariaDbStatements.prepare(part);
        if (prepare != null) {
            return prepared(prepare);
        }
        String deallocated = MariaDbStatements.deallocated(part);
        if (deallocated != null) {
            // once it succeeded, the server holds nothing under the name (prepares(name, null))
            return Analyses.sessionSetting(1, false).toBuilder().forgetsPrepared(List.of(deallocated))
                    .prepares(deallocated.equals(MariaDbStatements.ALL_NAMES) ? null : deallocated, null).build();
        }
        String executed = MariaDbStatements.executed(part);
        if (executed != null) {
            // The connection knows what it saw prepared under the name; this analysis alone refuses it.
            return Analyses.unguardable("EXECUTE of a statement this connection did not see prepared from a string"
                    + " literal (PREPARE ... FROM @variable or an expression, a name prepared elsewhere), so the driver"
                    + " cannot tell what it runs: " + Analyses.excerpt(part.text()), 1).toBuilder().executes(executed)
                    .build();
        }
        String immediate = MariaDbStatements.executedImmediately(part);
        if (immediate != null) {
            Analysis inner = immediate.isEmpty() ? Analyses.unguardable("EXECUTE IMMEDIATE of a text that is not one"
                    + " plain string literal (a variable, an expression, a literal with a backslash), which the driver"
                    + " cannot read: " + Analyses.excerpt(part.text()), 1) : innerStatement(immediate);
            return runnable(inner) ? inner : Analyses.unguardable("EXECUTE IMMEDIATE of a statement that is not a"
                    + " query, a mutation or a session setting: " + Analyses.excerpt(part.text()), 1);
        }
        return null;
    }

    /**
     * {@code PREPARE name FROM ...}: it runs nothing, so it is what PostgreSQL's {@code PREPARE name AS ...} is (a
     * write needs a token that is not stale, and takes no lock), and it tells the connection what {@code EXECUTE
     * name} will run. A source that is not one plain literal (a variable, an expression, which may call a function)
     * is evaluated as a read, and the name is then one the driver cannot execute.
     */
    private Analysis prepared(MariaDbStatements.Prepare prepare) {
        List<String> forgets = List.of(prepare.name() == null ? MariaDbStatements.ALL_NAMES : prepare.name());
        if (prepare.literal() == null || prepare.name() == null) {
            return Analyses.readOnly(1, false).toBuilder().forgetsPrepared(forgets).build();
        }
        Analysis inner = innerStatement(prepare.literal());
        Analysis outer;
        if (inner.kind() == StatementKind.MUTATION) {
            outer = Analyses.preparesOnly(inner.targetTables());
        } else if (inner.kind() == StatementKind.READ_ONLY || inner.kind() == StatementKind.SESSION_SETTING) {
            outer = Analyses.sessionSetting(1, false);
        } else {
            return Analyses.unguardable(inner.kind() == StatementKind.UNGUARDABLE ? inner.reason()
                    : "PREPARE of a statement that is not a query, a mutation or a session setting", 1).toBuilder()
                    .forgetsPrepared(forgets).build();
        }
        return outer.toBuilder().forgetsPrepared(forgets).prepares(prepare.name(), inner).build();
    }

    /** Whether an analysis of a carried text can be run by {@code EXECUTE}: no transaction control, no fencing setting. */
    private static boolean runnable(Analysis inner) {
        return inner.kind() != StatementKind.TRANSACTION_CONTROL && inner.kind() != StatementKind.FENCING_SETTING;
    }

    /**
     * The analysis of a statement carried as text by a MariaDB {@code PREPARE} or {@code EXECUTE IMMEDIATE}, as if it
     * were a text of its own (its functions, facts and tables), or a refusal when it is not one statement the lexer
     * reads with certainty.
     */
    private Analysis innerStatement(String text) {
        List<Part> parts = SqlLexer.split(text, dialect);
        boolean clear = SqlLexer.isClear(text, dialect);
        if (parts.size() != 1 || !clear || SqlLexer.hasExecutableComment(text, dialect)) {
            return Analyses.unguardable("a prepared text that is not one statement the driver reads with certainty: "
                    + Analyses.excerpt(text), 1);
        }
        Part part = parts.get(0);
        return Analyses.withFacts(withCatalogFacts(analyzePart(part), part), facts(text, parts, true));
    }

    /** H2 {@code SET} commands that change only this session; any other H2 {@code SET} changes the database. */
    private static final java.util.Set<String> H2_SESSION_SETTINGS = java.util.Set.of("AUTOCOMMIT", "CATALOG",
            "LAZY_QUERY_EXECUTION", "LOCK_TIMEOUT", "NON_KEYWORDS", "QUERY_TIMEOUT", "SCHEMA", "SCHEMA_SEARCH_PATH",
            "PATH", "SESSION", "THROTTLE", "TIME", "VARIABLE_BINARY", "TRUNCATE_LARGE_LENGTH", "MODE",
            // PostgreSQL's session settings, which H2 reads in its PostgreSQL mode (search_path) or refuses
            "SEARCH_PATH", "STATEMENT_TIMEOUT", "CLIENT_ENCODING", "DATESTYLE", "CLIENT_MIN_MESSAGES",
            "APPLICATION_NAME", "EXTRA_FLOAT_DIGITS");

    private static boolean h2SessionSetting(Part part) {
        List<Token> tokens = part.tokens();
        return tokens.size() > 1 && (tokens.get(1).isPunctuation('@')
                || H2_SESSION_SETTINGS.contains(KeywordClassifier.word(tokens, 1)));
    }

    /** A {@code U&"..."} identifier, lexed as one token (PostgreSQL) or as {@code U}, {@code &}, {@code "..."} (H2). */
    private static boolean hasUnicodeEscapedIdentifier(Part part) {
        List<Token> tokens = part.tokens();
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (token.kind() == Token.Kind.QUOTED_IDENTIFIER && part.source(token).regionMatches(true, 0, "U&", 0, 2)) {
                return true;
            }
            if (token.is("U") && i + 2 < tokens.size() && tokens.get(i + 1).isPunctuation('&')
                    && tokens.get(i + 1).start() == token.end()
                    && tokens.get(i + 2).kind() == Token.Kind.QUOTED_IDENTIFIER
                    && tokens.get(i + 2).start() == tokens.get(i + 1).end()) {
                return true;
            }
        }
        return false;
    }

    private Analysis classifyPart(Part part) {
        if (KeywordClassifier.runsAProgram(part.tokens())) {
            return Analyses.unguardable("COPY ... PROGRAM starts a program on the server, whose work can outlive the"
                    + " guard's transaction: run it through the underlying driver", 1);
        }
        InnerStatements.Inner inner = InnerStatements.find(part);
        if (inner != null) {
            return carried(inner);
        }
        Analysis recognised = KeywordClassifier.classify(part);
        if (recognised != null) {
            return recognised;
        }
        if (part.maxDepth() > SqlParsing.MAX_NESTING_DEPTH) {
            return Analyses.unguardable("parentheses nest deeper than " + SqlParsing.MAX_NESTING_DEPTH + ": "
                    + Analyses.excerpt(part.text()), 1);
        }
        Statement statement;
        try {
            statement = SqlParsing.statement(part.tokensOnly(), dialect, part.maxDepth());
        } catch (ParseException | RuntimeException | StackOverflowError e) {
            // The lexer split it with certainty (isClear), so it is one statement the server will judge: a mutation
            // of tables that cannot be named, sent untouched after the locking read (issue 11, item 2).
            return unreadable(part);
        }
        try {
            return StatementClassifier.classify(statement);
        } catch (RuntimeException e) {
            return unreadable(part);
        }
    }

    /**
     * A statement the parser cannot read: a write of tables that cannot be named, run after the locking read. On
     * MariaDB and MySQL what could leave the guard's transaction was refused before the parser was asked (compound
     * statements, calls, {@code EXECUTE} of what the connection did not see prepared, XA, {@code BINLOG}, starting
     * replication, events: {@link MariaDbStatements}); a statement that commits on its own runs alone, like DDL.
     */
    private Analysis unreadable(Part part) {
        return Analyses.opaque(1);
    }

    /**
     * {@code CREATE [LOCAL | GLOBAL] TEMP[ORARY] TABLE [IF NOT EXISTS] name}: the name's own part, lower-cased
     * (PostgreSQL only, where a temporary table belongs to the session); otherwise null.
     */
    private String temporaryTableCreated(Part part) {
        List<Token> tokens = part.tokens();
        if (dialect != Dialect.POSTGRESQL || !KeywordClassifier.word(tokens, 0).equals("CREATE")) {
            return null;
        }
        int i = 1;
        String scope = KeywordClassifier.word(tokens, i);
        if (scope.equals("LOCAL") || scope.equals("GLOBAL")) {
            i++;
        }
        String temp = KeywordClassifier.word(tokens, i);
        if (!(temp.equals("TEMP") || temp.equals("TEMPORARY")) || !KeywordClassifier.word(tokens, i + 1).equals("TABLE")) {
            return null;
        }
        i += 2;
        if (KeywordClassifier.word(tokens, i).equals("IF")) {
            i += 3;
        }
        return Names.ownAt(part, i);
    }

    /** A statement that carries others is what they are, as its carrier uses them (see {@link InnerStatements}). */
    private Analysis carried(InnerStatements.Inner inner) {
        if (inner.takesDriverName()) {
            return Analyses.unguardable("PREPARE under a name PostgreSQL's JDBC driver gives its own prepared"
                    + " statements (S_1, S_2, ...), which the driver would later run in place of its own: choose"
                    + " another name", 1);
        }
        Set<String> targets = new LinkedHashSet<>();
        boolean mutation = false;
        boolean opaque = false;
        for (String text : inner.statements()) {
            List<Part> parts = SqlLexer.split(text, dialect);
            if (parts.size() != 1) {
                return Analyses.unguardable("cannot tell what " + inner.carrier() + " runs: " + Analyses.excerpt(text),
                        1);
            }
            Analysis analysis = analyzePart(parts.get(0));
            if (!analysis.forgetsPrepared().isEmpty() || analysis.executedName() != null) {
                return Analyses.unguardable(inner.carrier() + " of a PREPARE, EXECUTE or DEALLOCATE: "
                        + Analyses.excerpt(text), 1);
            }
            opaque |= analysis.isOpaque();
            switch (analysis.kind()) {
                case MUTATION:
                    mutation = true;
                    targets.addAll(analysis.targetTables());
                    break;
                case READ_ONLY:
                    break;
                case UNGUARDABLE:
                    return analysis;
                default:
                    return Analyses.unguardable(inner.carrier() + " of a statement that is not a query or a mutation: "
                            + Analyses.excerpt(text), 1);
            }
        }
        List<String> targetList = new ArrayList<>(targets);
        Analysis carried = carried(inner.carrier(), mutation, targetList);
        return opaque && carried.kind() == StatementKind.MUTATION && !carried.preparesOnly()
                ? Analyses.opaque(carried) : carried;
    }

    private static Analysis carried(InnerStatements.Carrier carrier, boolean mutation, List<String> targetList) {
        switch (carrier) {
            case EXPLAIN:
            case SET_STATEMENT:
                return mutation ? Analyses.mutation(targetList, true, 1) : Analyses.readOnly(1, true);
            case PREPARE:
                // PREPARE runs nothing: the EXECUTE that runs the write is a mutation of its own (issue 11, item 3).
                return mutation ? Analyses.preparesOnly(targetList) : Analyses.readOnly(1, false);
            case DECLARE_CURSOR:
            case COPY_TO_CLIENT:
                return mutation ? Analyses.mutation(targetList, false, 1) : Analyses.readOnly(1, false);
            case COPY_TO_SERVER:
                return Analyses.mutation(targetList, false, 1);
            case DELTA_TABLE:
                return mutation ? Analyses.mutation(targetList, true, 1)
                        : Analyses.unguardable("a delta table over a statement that changes no data", 1);
            default:
                return Analyses.unguardable("a data change delta table (FINAL/NEW/OLD TABLE) outside a query", 1);
        }
    }
}
