package dev.fencing.sql;

import java.util.List;

/** Factories for the {@link Analysis} of one statement, so every step builds its verdict the same way. */
final class Analyses {
    private Analyses() {
    }

    static Analysis readOnly(int statementCount, boolean returnsRows) {
        return of(StatementKind.READ_ONLY, List.of(), null, null, returnsRows, statementCount, null);
    }

    static Analysis sessionSetting(int statementCount, boolean returnsRows) {
        return of(StatementKind.SESSION_SETTING, List.of(), null, null, returnsRows, statementCount, null);
    }

    static Analysis transactionControl(TransactionControl control, int statementCount) {
        return of(StatementKind.TRANSACTION_CONTROL, List.of(), control, null, false, statementCount, null);
    }

    static Analysis fencingSetting(String name, String value, boolean local) {
        return new Analysis(StatementKind.FENCING_SETTING, List.of(), null, name, value, local, null, false, 1, null,
                false, false);
    }

    static Analysis mutation(List<String> targets, boolean returnsRows, int statementCount, GuardedSql joined) {
        return of(StatementKind.MUTATION, targets, null, null, returnsRows, statementCount, joined);
    }

    static Analysis unguardable(String reason, int statementCount) {
        return of(StatementKind.UNGUARDABLE, List.of(), null, reason, false, statementCount, null);
    }

    private static Analysis of(StatementKind kind, List<String> targets, TransactionControl control, String reason,
                               boolean returnsRows, int statementCount, GuardedSql joined) {
        return new Analysis(kind, targets, control, null, null, false, reason, returnsRows, statementCount, joined,
                false, false);
    }

    /** A JDBC call escape: a procedure call whose writes cannot be named. */
    static Analysis callEscape() {
        return new Analysis(StatementKind.MUTATION, List.of(), null, null, null, false, null, true, 1, null, false,
                true);
    }

    /** The same analysis, marked as one after which the transaction's locks cannot be trusted. */
    static Analysis endingTransaction(Analysis a) {
        return new Analysis(a.kind(), a.targetTables(), a.transactionControl(), a.settingName(), a.settingValue(),
                a.isLocalSetting(), a.reason(), a.returnsRows(), a.statementCount(), a.joined(), true, a.isCallEscape());
    }

    /** The same mutation, with {@code targets} as its targets. */
    static Analysis withTargets(Analysis a, List<String> targets) {
        return new Analysis(a.kind(), targets, a.transactionControl(), a.settingName(), a.settingValue(),
                a.isLocalSetting(), a.reason(), a.returnsRows(), a.statementCount(), a.joined(), a.mayEndTransaction(),
                a.isCallEscape());
    }

    /** The first 80 characters of {@code text} on one line, for a reason that quotes the statement. */
    static String excerpt(String text) {
        String line = text.strip().replaceAll("\\s+", " ");
        return line.length() <= 80 ? line : line.substring(0, 80) + "...";
    }
}
