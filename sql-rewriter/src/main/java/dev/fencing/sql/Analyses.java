package dev.fencing.sql;

import java.util.List;

/** Factories for the {@link Analysis} of one statement, so every step builds its verdict the same way. */
final class Analyses {
    private Analyses() {
    }

    static Analysis readOnly(int statementCount, boolean returnsRows) {
        return new Analysis(StatementKind.READ_ONLY, List.of(), null, null, null, null, returnsRows, statementCount, null,
                false);
    }

    static Analysis sessionSetting(int statementCount, boolean returnsRows) {
        return new Analysis(StatementKind.SESSION_SETTING, List.of(), null, null, null, null, returnsRows, statementCount,
                null, false);
    }

    static Analysis transactionControl(TransactionControl control, int statementCount) {
        return new Analysis(StatementKind.TRANSACTION_CONTROL, List.of(), control, null, null, null, false,
                statementCount, null, false);
    }

    static Analysis fencingSetting(String name, String value) {
        return new Analysis(StatementKind.FENCING_SETTING, List.of(), null, name, value, null, false, 1, null, false);
    }

    static Analysis mutation(List<String> targets, boolean returnsRows, int statementCount, GuardedSql joined) {
        return new Analysis(StatementKind.MUTATION, targets, null, null, null, null, returnsRows, statementCount, joined,
                false);
    }

    static Analysis unguardable(String reason, int statementCount) {
        return new Analysis(StatementKind.UNGUARDABLE, List.of(), null, null, null, reason, false, statementCount, null,
                false);
    }

    /** The same analysis, marked as one after which the transaction's locks cannot be trusted. */
    static Analysis endingTransaction(Analysis a) {
        return new Analysis(a.kind(), a.targetTables(), a.transactionControl(), a.settingName(), a.settingValue(),
                a.reason(), a.returnsRows(), a.statementCount(), a.joined(), true);
    }

    /** The same mutation, with {@code targets} as its targets. */
    static Analysis withTargets(Analysis a, List<String> targets) {
        return new Analysis(a.kind(), targets, a.transactionControl(), a.settingName(), a.settingValue(),
                a.reason(), a.returnsRows(), a.statementCount(), a.joined(), a.mayEndTransaction());
    }

    /** The first 80 characters of {@code text} on one line, for a reason that quotes the statement. */
    static String excerpt(String text) {
        String line = text.strip().replaceAll("\\s+", " ");
        return line.length() <= 80 ? line : line.substring(0, 80) + "...";
    }
}
