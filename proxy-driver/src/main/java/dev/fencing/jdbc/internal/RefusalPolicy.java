package dev.fencing.jdbc.internal;

import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.SqlRedaction;

import java.nio.file.Path;
import java.sql.SQLException;

/**
 * The one place that decides what a refusal does. In enforce mode (the default) the refusal is thrown; in audit
 * mode ({@code fencing.mode=audit}) it is not, and the caller runs the statement as the underlying driver would,
 * unguarded. Either way it is counted in the {@link AuditLog}, with the statement's text stripped of values.
 * Writes to the fence's own tables are refused in every mode: they are the fence's state, not the application's.
 */
final class RefusalPolicy {
    private final boolean audit;
    private final Dialect dialect;

    private RefusalPolicy(boolean audit, Dialect dialect) {
        this.audit = audit;
        this.dialect = dialect;
    }

    static RefusalPolicy of(Settings settings, Dialect dialect) throws SQLException {
        boolean audit = settings.mode() == Settings.Mode.AUDIT;
        Path file = settings.auditFile();
        if (audit || file != null) {
            AuditLog.writeAtExit(file == null ? Path.of(Settings.DEFAULT_AUDIT_FILE) : file);
        }
        return new RefusalPolicy(audit, dialect);
    }

    /**
     * Refuses {@code statement}: throws {@code refusal} in enforce mode; in audit mode returns, and the caller
     * runs the statement untouched.
     */
    void refuse(FencingRefusedException refusal, String statement) throws FencingRefusedException {
        AuditLog.record(refusal, SqlRedaction.withoutLiterals(statement, dialect), !audit);
        if (!audit) {
            throw refusal;
        }
    }

    /** Refuses {@code statement} in every mode (recorded as refused): a write to the fence's own tables. */
    void refuseAlways(FencingRefusedException refusal, String statement) throws FencingRefusedException {
        AuditLog.record(refusal, SqlRedaction.withoutLiterals(statement, dialect), true);
        throw refusal;
    }

    boolean audit() {
        return audit;
    }
}
