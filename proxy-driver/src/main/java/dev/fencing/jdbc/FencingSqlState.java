package dev.fencing.jdbc;

/**
 * The SQLStates of fencing refusals, one per kind, in the implementation-defined class {@code ZF}. None of them
 * is a state a connection pool treats as a broken connection, so a refusal never evicts a pooled connection.
 */
public final class FencingSqlState {
    /** A mutation without a token, or with a token that is not a positive 64-bit integer (SPEC C1). */
    public static final String INVALID_TOKEN = "ZF001";
    /** The token is lower than the resource's high-water mark: a newer owner has written (SPEC C2). */
    public static final String STALE_TOKEN = "ZF002";
    /** The token is greater than any token the issuer handed out for the resource (SPEC C7). */
    public static final String TOKEN_NOT_ISSUED = "ZF003";
    /** The statement could change data but cannot be guarded, so it is refused (SPEC C5). */
    public static final String CANNOT_GUARD = "ZF004";
    /**
     * A write to the fence's own tables, or access to an unguarded vendor object, was refused (SPEC C5); also
     * raised by the database itself, from the epoch table's triggers, when any client tries to lower, delete,
     * truncate or rename a high-water mark (SPEC C9).
     */
    public static final String PROTECTED = "ZF005";
    /** The fencing configuration is wrong: a bad setting, or a missing epoch table. */
    public static final String CONFIGURATION = "ZF006";

    /** Every state above, in order: the one list that counters and documentation are made from. */
    public static final java.util.List<String> ALL = java.util.List.of(INVALID_TOKEN, STALE_TOKEN, TOKEN_NOT_ISSUED,
            CANNOT_GUARD, PROTECTED, CONFIGURATION);

    private FencingSqlState() {
    }
}
