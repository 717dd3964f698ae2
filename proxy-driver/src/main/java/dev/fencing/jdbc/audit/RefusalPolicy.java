package dev.fencing.jdbc.audit;

import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.SqlRedaction;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.function.Supplier;

/**
 * The one place that decides what a refusal does. In enforce mode (the default) the refusal is thrown; in audit
 * mode ({@code fencing.mode=audit}) it is not, and the caller runs the statement as the underlying driver would,
 * unguarded. Either way it is counted in the {@link AuditLog} and the resource's {@link FenceMetrics} (which logs
 * it), with the statement's text stripped of values. Writes to the fence's own tables are refused in every mode:
 * they are the fence's state, not the application's.
 */
public final class RefusalPolicy {
    private final boolean audit;
    private final Dialect dialect;
    /** The connection's resource now, for refusals that name none (a statement that cannot be guarded). */
    private final Supplier<String> resource;

    private RefusalPolicy(boolean audit, Dialect dialect, Supplier<String> resource) {
        this.audit = audit;
        this.dialect = dialect;
        this.resource = resource;
    }

    /**
     * The policy of one connection: {@code audit} for {@code fencing.mode=audit}; the audit log is written at exit
     * to {@code auditFile} ({@code fencing.audit.file}) when given, else to the default file in audit mode.
     */
    public static RefusalPolicy of(boolean audit, Path auditFile, Dialect dialect, Supplier<String> resource)
            throws SQLException {
        if (auditFile != null) {
            AuditLog.writeAtExit(auditFile);
        } else if (audit) {
            AuditLog.writeAtExitToDefault();
        }
        return new RefusalPolicy(audit, dialect, resource);
    }

    /**
     * Refuses {@code statement}: throws {@code refusal} in enforce mode; in audit mode returns, and the caller
     * runs the statement untouched.
     */
    public void refuse(FencingRefusedException refusal, String statement) throws FencingRefusedException {
        record(refusal, statement, !audit);
        if (!audit) {
            throw refusal;
        }
    }

    /** Refuses {@code statement} in every mode (recorded as refused): a write to the fence's own tables. */
    public void refuseAlways(FencingRefusedException refusal, String statement) throws FencingRefusedException {
        record(refusal, statement, true);
        throw refusal;
    }

    private void record(FencingRefusedException refusal, String statement, boolean refused) {
        String shape = SqlRedaction.withoutLiterals(statement, dialect);
        AuditLog.record(refusal, shape, refused);
        FenceMetrics.of(refusal.getResource() != null ? refusal.getResource() : resource.get())
                .refused(refusal, shape, refused);
    }

    /** Whether refusals are recorded and the statements run ({@code fencing.mode=audit}) instead of thrown. */
    public boolean audit() {
        return audit;
    }
}
