package dev.fencing.sql;

import java.util.List;

/**
 * What one SQL text is: the result of {@link SqlAnalyzer#analyze(String)}, immutable and
 * cached per text, so the driver never parses the same text twice.
 */
public final class Analysis {
    private final StatementKind kind;
    private final List<String> targetTables;
    private final TransactionControl transactionControl;
    private final String settingName;
    private final String settingValue;
    private final boolean localSetting;
    private final String settingResource;
    private final String reason;
    private final boolean returnsRows;
    private final int statementCount;
    private final boolean mayEndTransaction;
    private final boolean callEscape;
    private final List<String> calledFunctions;
    private final List<String> castTypes;
    private final List<String> readNames;
    private final List<List<String>> targetReferences;
    private final boolean changesDataOnly;
    private final boolean opaque;
    private final boolean preparesOnly;
    private final String createdTemporaryTable;
    private final List<String> forgetsPrepared;
    private final String preparedName;
    private final Analysis prepared;
    private final String executedName;
    /** Whether the text was read with backslash escapes (the session's mode); null when its reading does not depend on it. */
    private final Boolean backslashEscapes;
    /** What the tokens say besides the kind: a set of {@link Fact}s (see {@link StatementFacts}). */
    private final int facts;

    /** Facts the analyzer derives from a text's tokens, for the driver's refusals. */
    enum Fact {
        CHANGES_CLIENT_CHARSET, PREPARES_TRANSACTION, LOCKS_ROWS, NAMES_PROTECTED_TABLE, RUNS_OUTSIDE_TRANSACTION,
        READS_RELATIONS, TAKES_TABLE_LOCKS, QUERIES_AFTER_IMPLICIT_COMMIT, READS_BY_BACKSLASH_MODE;

        int bit() {
            return 1 << ordinal();
        }
    }

    private Analysis(Builder b) {
        this.kind = b.kind;
        this.targetTables = List.copyOf(b.targetTables);
        this.transactionControl = b.transactionControl;
        this.settingName = b.settingName;
        this.settingValue = b.settingValue;
        this.localSetting = b.localSetting;
        this.settingResource = b.settingResource;
        this.reason = b.reason;
        this.returnsRows = b.returnsRows;
        this.statementCount = b.statementCount;
        this.mayEndTransaction = b.mayEndTransaction;
        this.callEscape = b.callEscape;
        this.calledFunctions = List.copyOf(b.calledFunctions);
        this.castTypes = List.copyOf(b.castTypes);
        this.readNames = List.copyOf(b.readNames);
        this.targetReferences = List.copyOf(b.targetReferences);
        this.changesDataOnly = b.changesDataOnly;
        this.opaque = b.opaque;
        this.preparesOnly = b.preparesOnly;
        this.createdTemporaryTable = b.createdTemporaryTable;
        this.forgetsPrepared = List.copyOf(b.forgetsPrepared);
        this.preparedName = b.preparedName;
        this.prepared = b.prepared;
        this.executedName = b.executedName;
        this.backslashEscapes = b.backslashEscapes;
        this.facts = b.facts;
    }

    /**
     * An analysis that stands for no statement, for a caller's own markers (compared by identity); refused like any
     * statement the driver cannot guard, should it ever reach a route.
     */
    public static Analysis placeholder() {
        return Analyses.unguardable("no statement", 1);
    }

    /** A new analysis of {@code kind}, every other field named as it is set (one statement, nothing else known). */
    static Builder of(StatementKind kind) {
        return new Builder(kind);
    }

    /** This analysis with some fields changed: each change names its field, and adding a field is one edit here. */
    Builder toBuilder() {
        Builder b = new Builder(kind);
        b.targetTables = targetTables;
        b.transactionControl = transactionControl;
        b.settingName = settingName;
        b.settingValue = settingValue;
        b.localSetting = localSetting;
        b.settingResource = settingResource;
        b.reason = reason;
        b.returnsRows = returnsRows;
        b.statementCount = statementCount;
        b.mayEndTransaction = mayEndTransaction;
        b.callEscape = callEscape;
        b.calledFunctions = calledFunctions;
        b.castTypes = castTypes;
        b.readNames = readNames;
        b.targetReferences = targetReferences;
        b.changesDataOnly = changesDataOnly;
        b.opaque = opaque;
        b.preparesOnly = preparesOnly;
        b.createdTemporaryTable = createdTemporaryTable;
        b.forgetsPrepared = forgetsPrepared;
        b.preparedName = preparedName;
        b.prepared = prepared;
        b.executedName = executedName;
        b.backslashEscapes = backslashEscapes;
        b.facts = facts;
        return b;
    }

    /** Builds an {@link Analysis} field by field, by name (see {@link #of} and {@link #toBuilder}). */
    static final class Builder {
        private final StatementKind kind;
        private List<String> targetTables = List.of();
        private TransactionControl transactionControl;
        private String settingName;
        private String settingValue;
        private boolean localSetting;
        private String settingResource;
        private String reason;
        private boolean returnsRows;
        private int statementCount = 1;
        private boolean mayEndTransaction;
        private boolean callEscape;
        private List<String> calledFunctions = List.of();
        private List<String> castTypes = List.of();
        private List<String> readNames = List.of();
        private List<List<String>> targetReferences = List.of();
        private boolean changesDataOnly;
        private boolean opaque;
        private boolean preparesOnly;
        private String createdTemporaryTable;
        private List<String> forgetsPrepared = List.of();
        private String preparedName;
        private Analysis prepared;
        private String executedName;
        private Boolean backslashEscapes;
        private int facts;

        private Builder(StatementKind kind) {
            this.kind = kind;
        }

        Builder targetTables(List<String> value) {
            targetTables = value;
            return this;
        }

        Builder transactionControl(TransactionControl value) {
            transactionControl = value;
            return this;
        }

        Builder setting(String name, String value, boolean local) {
            settingName = name;
            settingValue = value;
            localSetting = local;
            return this;
        }

        Builder settingResource(String value) {
            settingResource = value;
            return this;
        }

        Builder reason(String value) {
            reason = value;
            return this;
        }

        Builder returnsRows(boolean value) {
            returnsRows = value;
            return this;
        }

        Builder statementCount(int value) {
            statementCount = value;
            return this;
        }

        Builder mayEndTransaction(boolean value) {
            mayEndTransaction = value;
            return this;
        }

        Builder callEscape(boolean value) {
            callEscape = value;
            return this;
        }

        Builder catalogFacts(List<String> functions, List<List<String>> references, boolean dataOnly) {
            calledFunctions = functions;
            targetReferences = references;
            changesDataOnly = dataOnly;
            return this;
        }

        Builder castTypes(List<String> value) {
            castTypes = value;
            return this;
        }

        Builder readNames(List<String> value) {
            readNames = value;
            return this;
        }

        Builder opaque(boolean value) {
            opaque = value;
            return this;
        }

        Builder preparesOnly(boolean value) {
            preparesOnly = value;
            return this;
        }

        Builder createdTemporaryTable(String value) {
            createdTemporaryTable = value;
            return this;
        }

        Builder forgetsPrepared(List<String> names) {
            forgetsPrepared = names;
            return this;
        }

        Builder prepares(String name, Analysis statement) {
            preparedName = name;
            prepared = statement;
            return this;
        }

        Builder executes(String name) {
            executedName = name;
            return this;
        }

        Builder backslashEscapes(Boolean value) {
            backslashEscapes = value;
            return this;
        }

        Builder facts(int value) {
            facts = value;
            return this;
        }

        Analysis build() {
            return new Analysis(this);
        }
    }

    public StatementKind kind() {
        return kind;
    }

    /**
     * Tables a mutation writes, lower-cased, without schema or quotes. May be empty when the writes cannot be
     * named (a procedure call): the statement is still a mutation.
     */
    public List<String> targetTables() {
        return targetTables;
    }

    /** For {@link StatementKind#TRANSACTION_CONTROL}: which statement; otherwise {@code null}. */
    public TransactionControl transactionControl() {
        return transactionControl;
    }

    /** For {@link StatementKind#FENCING_SETTING}: the setting's name, lower-case, e.g. {@code fencing.token}. */
    public String settingName() {
        return settingName;
    }

    /** For {@link StatementKind#FENCING_SETTING}: the value as written, unquoted; the driver validates it. */
    public String settingValue() {
        return settingValue;
    }

    /** For {@link StatementKind#FENCING_SETTING}: whether it was {@code SET LOCAL}, lasting one transaction. */
    public boolean isLocalSetting() {
        return localSetting;
    }

    /**
     * For {@link StatementKind#FENCING_SETTING}: the resource a setting names after its own name
     * ({@code SET fencing.token.billing = 7}: {@code billing}), exactly as written and unquoted; {@code null} when
     * it names none.
     */
    public String settingResource() {
        return settingResource;
    }

    /** For {@link StatementKind#UNGUARDABLE}: why, in words for an error message. */
    public String reason() {
        return reason;
    }

    /** Whether the text yields rows (a query, or a mutation with RETURNING or a data-modifying WITH ... SELECT). */
    public boolean returnsRows() {
        return returnsRows;
    }

    /** How many statements the text holds (split on top-level {@code ;}). */
    public int statementCount() {
        return statementCount;
    }

    /**
     * Whether the database may end the open transaction while running this text: H2 and MariaDB commit before DDL
     * and some settings, and a PostgreSQL procedure ({@code CALL}) or {@code DO} block may {@code COMMIT} inside.
     * A guard sent ahead in the same text would not cover what runs after such an end.
     */
    public boolean mayEndTransaction() {
        return mayEndTransaction;
    }

    /**
     * Whether the text is a JDBC call escape ({@code {call p(?)}}): drivers resolve it only at the start of a text,
     * so no guard statement may be sent ahead of it in the same text.
     */
    public boolean isCallEscape() {
        return callEscape;
    }

    /**
     * Names the text may call as functions, unquoted and as written (case kept), without schema; an empty name
     * stands for one the text spells with Unicode escapes. A superset: a name the catalog does not know as a
     * function is no call (SPEC C9).
     */
    public List<String> calledFunctions() {
        return calledFunctions;
    }

    /**
     * PostgreSQL: the type names the statement casts to ({@code ::t}, {@code CAST(x AS t)}, a typed literal
     * {@code t '...'}), unquoted, as written, without schema; a superset (every name after {@code AS}). A cast to a
     * user type or domain runs user code (a cast function, a domain's {@code CHECK}): the catalog decides.
     */
    public List<String> castTypes() {
        return castTypes;
    }

    /**
     * MariaDB/MySQL, for a query ({@code SELECT}, as a view's definition is) and for a statement that
     * {@linkplain #queriesAfterImplicitCommit() runs its query after an implicit commit}: every name its tokens may
     * read as a relation (each name's own part, unquoted, as written; a {@code "..."} too, which names a relation
     * under {@code ANSI_QUOTES}), a superset the catalog judges: a view among them may call a function that writes.
     * Empty for anything else.
     */
    public List<String> readNames() {
        return readNames;
    }

    /**
     * For a mutation that {@linkplain #changesDataOnly() only changes data}: each place it names one of its
     * {@link #targetTables()}, as the parts of the name written there, quotes kept ({@code [public, "Audit"]}).
     * Empty when a target is not named in a plain way, or for anything else.
     */
    public List<List<String>> targetReferences() {
        return targetReferences;
    }

    /**
     * Whether the text is one statement that only changes rows of the tables it names (INSERT, UPDATE, DELETE,
     * MERGE, upsert, {@code COPY ... FROM}), as opposed to DDL, a call, or several statements.
     */
    public boolean changesDataOnly() {
        return changesDataOnly;
    }

    /**
     * Whether the text holds a statement the lexer splits with certainty but the parser cannot read (SPEC C5): a
     * mutation whose written tables cannot be named. With a current token it is sent untouched after the guard's
     * locking read, in the same transaction, so that whatever the server makes of it (including its own error) is
     * what the caller gets; without one it is refused like any mutation.
     */
    public boolean isOpaque() {
        return opaque;
    }

    /**
     * Whether the text only prepares a write for later ({@code PREPARE name AS <write>}): it runs nothing, and the
     * {@code EXECUTE} that runs it is a mutation of its own. It needs a token that is not stale, but no lock.
     */
    public boolean preparesOnly() {
        return preparesOnly;
    }

    /**
     * For {@code CREATE [LOCAL] TEMP[ORARY] TABLE name ...}: the name, lower-cased, so the connection knows which
     * names may mean a temporary table of its session (the database decides whether one does); otherwise null.
     */
    public String createdTemporaryTable() {
        return createdTemporaryTable;
    }

    /**
     * MariaDB/MySQL: the names of SQL-level prepared statements ({@code PREPARE name FROM ...}) whose meaning on the
     * server this text replaces or ends ({@code PREPARE}, {@code DEALLOCATE PREPARE}, {@code DROP PREPARE}), lower-case;
     * {@code "*"} stands for names the driver cannot read. The connection forgets what it knew of them before the
     * text is sent, whatever its outcome.
     */
    public List<String> forgetsPrepared() {
        return forgetsPrepared;
    }

    /**
     * MariaDB/MySQL: for a text that is one {@code PREPARE name FROM '<literal>'} or {@code DEALLOCATE PREPARE name},
     * the name (lower-case) under which {@link #preparedStatement()} (or nothing) is once the text succeeds;
     * otherwise null.
     */
    public String preparedName() {
        return preparedName;
    }

    /**
     * What the statement prepared under {@link #preparedName()} is, as if it were sent as a text; null when the text
     * leaves nothing under the name ({@code DEALLOCATE PREPARE name}) or prepares nothing.
     */
    public Analysis preparedStatement() {
        return prepared;
    }

    /**
     * MariaDB/MySQL: for {@code EXECUTE name [USING ...]}, the name (lower-case; {@code "*"} when it cannot be read);
     * the connection decides what the text is from what it saw prepared under that name (this analysis alone refuses
     * it, with its reason). Otherwise null.
     */
    public String executedName() {
        return executedName;
    }

    /**
     * MariaDB/MySQL: whether the text was read with backslash escapes in its strings ({@code TRUE}), without them
     * ({@code FALSE}, the session's {@code NO_BACKSLASH_ESCAPES}), or {@code null} when both readings agree. A text
     * read by one mode means what it says only while the session is in that mode (see
     * {@link SqlAnalyzer#analyze(String, boolean)}).
     */
    public Boolean backslashEscapes() {
        return backslashEscapes;
    }

    /**
     * MariaDB/MySQL: whether the text's strings end elsewhere with backslash escapes than without them, and nothing
     * else makes it unreadable: {@link SqlAnalyzer#analyze(String, boolean)} reads it by the session's mode. This
     * analysis alone refuses it.
     */
    public boolean readsByBackslashMode() {
        return has(Fact.READS_BY_BACKSLASH_MODE);
    }

    int facts() {
        return facts;
    }

    private boolean has(Fact fact) {
        return (facts & fact.bit()) != 0;
    }

    /**
     * MariaDB/MySQL: whether a statement of the text may change the client's character set (or the connection's) to
     * one in which a quote, backslash or backtick can be part of another character ({@code SET NAMES gbk},
     * {@code SET CHARACTER SET}, {@code SET CHARSET}, {@code SET [@@][SESSION.]character_set_client = ...},
     * {@code character_set_connection}, {@code collation_connection}, also in {@code SET STATEMENT ... FOR}): the
     * server would decode the next texts otherwise than the driver reads them. Only utf8mb4, utf8mb3, utf8, latin1
     * and ascii, written as one name, are safe.
     */
    public boolean changesClientCharset() {
        return has(Fact.CHANGES_CLIENT_CHARSET);
    }

    /** Whether a statement of the text is {@code PREPARE TRANSACTION} (two-phase commit's first step). */
    public boolean preparesTransaction() {
        return has(Fact.PREPARES_TRANSACTION);
    }

    /**
     * Whether a statement of the text locks what it names: {@code LOCK} (a table lock, MariaDB's
     * {@code LOCK IN SHARE MODE}) or {@code FOR UPDATE}, {@code FOR SHARE}, {@code FOR NO KEY UPDATE},
     * {@code FOR KEY SHARE}, comments between the words or not.
     */
    public boolean locksRows() {
        return has(Fact.LOCKS_ROWS);
    }

    /**
     * MariaDB/MySQL: whether a statement of the text takes table locks the session keeps until {@code UNLOCK TABLES}
     * ({@code LOCK TABLE[S] ...}, {@code FLUSH TABLE[S] ... WITH READ LOCK} or {@code ... FOR EXPORT}); a transaction
     * opened with {@code START TRANSACTION} afterwards releases them.
     */
    public boolean takesTableLocks() {
        return has(Fact.TAKES_TABLE_LOCKS);
    }

    /**
     * Whether the text names one of the fence's own tables (epoch, lease, session) anywhere, by its own name folded
     * as every table name is ({@link Names#fold}); for a text whose tokens are not certain, anywhere in its text.
     */
    public boolean namesProtectedTable() {
        return has(Fact.NAMES_PROTECTED_TABLE);
    }

    /**
     * Whether a statement of the text may read a relation besides the tables it writes, as its tokens show: a query
     * or join ({@code SELECT}, {@code TABLE}, {@code WITH}, {@code JOIN}, {@code USING}, or a {@code FROM} other
     * than {@code DELETE FROM} and {@code COPY ... FROM}). A relation read may be a view whose function writes
     * elsewhere (found by review: {@code INSERT INTO exempt_log SELECT x FROM writing_view}), so such a statement is
     * never a write to exempt or temporary tables alone.
     */
    public boolean readsRelations() {
        return has(Fact.READS_RELATIONS);
    }

    /**
     * Whether the text is one statement that PostgreSQL runs only outside a transaction block ({@code VACUUM},
     * {@code ALTER SYSTEM}, {@code REINDEX} of a schema, database or system or {@code CONCURRENTLY}, {@code CLUSTER}
     * without a table): no guard can share its transaction, so it needs a token that is not stale, read without a
     * lock, and runs on its own. What it runs (index expressions, for one) is not atomic with that check.
     */
    public boolean runsOutsideTransaction() {
        return has(Fact.RUNS_OUTSIDE_TRANSACTION);
    }

    /**
     * MariaDB/MySQL: whether the statement commits on its own and only then runs a query ({@code CREATE TABLE ...
     * SELECT}): what that query calls runs after the guard's lock was released with the commit.
     */
    public boolean queriesAfterImplicitCommit() {
        return has(Fact.QUERIES_AFTER_IMPLICIT_COMMIT);
    }

    @Override
    public String toString() {
        return kind + (targetTables.isEmpty() ? "" : " " + targetTables) + (reason == null ? "" : " (" + reason + ")")
                + (opaque ? " (opaque)" : "") + (runsOutsideTransaction() ? " (outside a transaction)" : "");
    }
}
