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
    private final String reason;
    private final boolean returnsRows;
    private final int statementCount;
    private final boolean mayEndTransaction;
    private final boolean callEscape;

    Analysis(StatementKind kind, List<String> targetTables, TransactionControl transactionControl,
             String settingName, String settingValue, String reason, boolean returnsRows, int statementCount,
             boolean mayEndTransaction, boolean callEscape) {
        this.kind = kind;
        this.targetTables = List.copyOf(targetTables);
        this.transactionControl = transactionControl;
        this.settingName = settingName;
        this.settingValue = settingValue;
        this.reason = reason;
        this.returnsRows = returnsRows;
        this.statementCount = statementCount;
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

    @Override
    public String toString() {
        return kind + (targetTables.isEmpty() ? "" : " " + targetTables) + (reason == null ? "" : " (" + reason + ")");
    }
}
