package dev.fencing.sql;

import java.util.List;

/**
 * What one SQL text is and how to guard it: the result of {@link SqlAnalyzer#analyze(String)}, immutable and
 * cached per text, so the driver never parses the same text twice.
 */
public final class Analysis {
    private final StatementKind kind;
    private final List<String> targetTables;
    private final TransactionControl transactionControl;
    private final String settingName;
    private final String settingValue;
    private final boolean localSetting;
    private final String reason;
    private final boolean returnsRows;
    private final int statementCount;
    private final GuardedSql joined;
    private final boolean mayEndTransaction;
    private final boolean callEscape;

    Analysis(StatementKind kind, List<String> targetTables, TransactionControl transactionControl,
             String settingName, String settingValue, boolean localSetting, String reason, boolean returnsRows, int statementCount,
             GuardedSql joined, boolean mayEndTransaction, boolean callEscape) {
        this.kind = kind;
        this.targetTables = List.copyOf(targetTables);
        this.transactionControl = transactionControl;
        this.settingName = settingName;
        this.settingValue = settingValue;
        this.localSetting = localSetting;
        this.reason = reason;
        this.returnsRows = returnsRows;
        this.statementCount = statementCount;
        this.joined = joined;
        this.mayEndTransaction = mayEndTransaction;
        this.callEscape = callEscape;
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

    /**
     * For {@link StatementKind#FENCING_SETTING}: whether it was {@code SET LOCAL}, which lasts until the end of
     * the current transaction only.
     */
    public boolean isLocalSetting() {
        return localSetting;
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
     * The statement with the guard joined into its own text, or {@code null} when a join would change its
     * results (INSERT ... VALUES, several statements, DDL, calls): then the guard must run ahead of it.
     */
    public GuardedSql joined() {
        return joined;
    }

    /**
     * Whether the database may commit the open transaction while running this text, as H2 and MariaDB do before
     * DDL and some settings: the epoch-row lock the transaction held may be gone afterwards.
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

    @Override
    public String toString() {
        return kind + (targetTables.isEmpty() ? "" : " " + targetTables) + (reason == null ? "" : " (" + reason + ")");
    }
}
