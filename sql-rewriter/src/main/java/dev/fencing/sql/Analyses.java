package dev.fencing.sql;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Factories for the {@link Analysis} of one statement, so every step builds its verdict the same way, and the one
 * verdict of several statements in one text.
 */
final class Analyses {
    private Analyses() {
    }

    static Analysis readOnly(int statementCount, boolean returnsRows) {
        return of(StatementKind.READ_ONLY, List.of(), null, null, returnsRows, statementCount);
    }

    static Analysis sessionSetting(int statementCount, boolean returnsRows) {
        return of(StatementKind.SESSION_SETTING, List.of(), null, null, returnsRows, statementCount);
    }

    static Analysis transactionControl(TransactionControl control, int statementCount) {
        return of(StatementKind.TRANSACTION_CONTROL, List.of(), control, null, false, statementCount);
    }

    static Analysis fencingSetting(String name, String resource, String value, boolean local) {
        return Analysis.of(StatementKind.FENCING_SETTING).setting(name, value, local).settingResource(resource)
                .build();
    }

    static Analysis mutation(List<String> targets, boolean returnsRows, int statementCount) {
        return of(StatementKind.MUTATION, targets, null, null, returnsRows, statementCount);
    }

    static Analysis unguardable(String reason, int statementCount) {
        return of(StatementKind.UNGUARDABLE, List.of(), null, reason, false, statementCount);
    }

    private static Analysis of(StatementKind kind, List<String> targets, TransactionControl control, String reason,
                               boolean returnsRows, int statementCount) {
        return Analysis.of(kind).targetTables(targets).transactionControl(control).reason(reason)
                .returnsRows(returnsRows).statementCount(statementCount).build();
    }

    /** A JDBC call escape: a procedure call whose writes cannot be named. */
    static Analysis callEscape() {
        return Analysis.of(StatementKind.MUTATION).returnsRows(true).callEscape(true).build();
    }

    /** The same analysis, marked as one after which the transaction's locks cannot be trusted. */
    static Analysis endingTransaction(Analysis a) {
        return a.toBuilder().mayEndTransaction(true).build();
    }

    /**
     * A statement the parser cannot read but the lexer split with certainty: a mutation of tables that cannot be
     * named, sent untouched after the locking read (see {@link Analysis#isOpaque()}).
     */
    static Analysis opaque(int statementCount) {
        return opaque(mutation(List.of(), false, statementCount));
    }

    /** The same analysis, marked as holding a statement the parser cannot read. */
    static Analysis opaque(Analysis a) {
        return a.toBuilder().opaque(true).build();
    }

    /** {@code PREPARE name AS <write>}: prepares the write without running it (see {@link Analysis#preparesOnly()}). */
    static Analysis preparesOnly(List<String> targets) {
        return Analysis.of(StatementKind.MUTATION).targetTables(targets).preparesOnly(true).build();
    }

    /**
     * A statement PostgreSQL runs only outside a transaction block, so no guard can share its transaction (see
     * {@link Analysis#runsOutsideTransaction()}).
     */
    static Analysis outsideTransaction() {
        return Analysis.of(StatementKind.MUTATION).facts(Analysis.Fact.RUNS_OUTSIDE_TRANSACTION.bit()).build();
    }

    /** The same analysis, as the creation of the temporary table {@code name}. */
    static Analysis createsTemporaryTable(Analysis a, String name) {
        return a.toBuilder().createdTemporaryTable(name).build();
    }

    /** The same mutation, with {@code targets} as its targets. */
    static Analysis withTargets(Analysis a, List<String> targets) {
        return a.toBuilder().targetTables(targets).build();
    }

    /** The same analysis, with what the catalog must judge about it (see {@link CatalogFacts}). */
    static Analysis withCatalogFacts(Analysis a, List<String> calledFunctions, List<List<String>> targetReferences,
                                     boolean changesDataOnly) {
        return a.toBuilder().catalogFacts(calledFunctions, targetReferences, changesDataOnly).build();
    }

    /**
     * The same analysis, with the facts (a set of {@link Analysis.Fact} bits) the text's tokens gave added to the
     * classifier's own (running outside a transaction, a query after an implicit commit, a carried text's facts).
     */
    static Analysis withFacts(Analysis a, int tokenFacts) {
        int facts = tokenFacts | a.facts();
        return facts == a.facts() ? a : a.toBuilder().facts(facts).build();
    }

    /** How a reason names the statement: its first word and its length, never its text. */
    static String excerpt(String text) {
        // Only the statement's first word and its length: a reason reaches messages, logs and audit reports, and a
        // text the lexer could not read with certainty cannot be stripped of its values (found by review).
        String line = text.strip();
        int end = 0;
        while (end < line.length() && end < 24 && Character.isLetter(line.charAt(end))) {
            end++;
        }
        return (end == 0 ? "a statement" : line.substring(0, end).toUpperCase(java.util.Locale.ROOT) + " ...")
                + " (" + line.length() + " characters)";
    }

    /** Several statements in one text: guarded as a whole or refused as a whole, never joined. */
    static Analysis combine(List<Analysis> analyses) {
        Analysis combined = combineKinds(analyses);
        for (Analysis analysis : analyses) {
            if (analysis.isOpaque() && combined.kind() == StatementKind.MUTATION) {
                combined = opaque(combined);
            }
        }
        for (Analysis analysis : analyses) {
            if (analysis.mayEndTransaction()) {
                return endingTransaction(combined);
            }
        }
        return combined;
    }

    private static Analysis combineKinds(List<Analysis> analyses) {
        int count = analyses.size();
        int transactionControls = 0;
        Analysis control = null;
        boolean mutation = false;
        boolean allSettings = true;
        boolean returnsRows = false;
        Set<String> targets = new LinkedHashSet<>();
        for (Analysis analysis : analyses) {
            switch (analysis.kind()) {
                case UNGUARDABLE:
                    return unguardable(analysis.reason(), count);
                case FENCING_SETTING:
                    return unguardable("SET " + analysis.settingName()
                            + " must be a text of its own, not one of several statements", count);
                case TRANSACTION_CONTROL:
                    transactionControls++;
                    control = analysis;
                    break;
                case MUTATION:
                    mutation = true;
                    targets.addAll(analysis.targetTables());
                    break;
                default:
                    break;
            }
            allSettings &= analysis.kind() == StatementKind.SESSION_SETTING;
            returnsRows |= analysis.returnsRows();
        }
        if (transactionControls > 0 && mutation) {
            return unguardable("transaction control mixed with writes in one text", count);
        }
        if (transactionControls > 1) {
            return unguardable("several transaction-control statements in one text", count);
        }
        if (transactionControls > 0 && count > 1) {
            // A COMMIT or BEGIN between two statements opens a transaction inside the text, which no admission can
            // precede (found by review: a read that lifted the session's read-only default, COMMIT, then a hidden
            // write in the new transaction).
            return unguardable("transaction control in one text with other statements: the server would open a"
                    + " transaction inside it that the fence cannot admit", count);
        }
        if (control != null) {
            return transactionControl(control.transactionControl(), count);
        }
        if (mutation) {
            return mutation(new ArrayList<>(targets), returnsRows, count);
        }
        return allSettings ? sessionSetting(count, returnsRows) : readOnly(count, returnsRows);
    }
}
