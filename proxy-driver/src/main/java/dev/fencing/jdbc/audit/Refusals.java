package dev.fencing.jdbc.audit;

import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.FencingSqlState;

/** Builds every refusal the fence raises, so their wording and SQLStates stay in one place. */
public final class Refusals {
    private Refusals() {
    }

    public static FencingRefusedException missingToken(String resource) {
        return new FencingRefusedException("fencing: no token for resource '" + resource
                + "': a mutation needs a fencing token (scope, connection, SET fencing.token, settings, token file"
                + " or environment)", "no token for resource '" + resource + "'", FencingSqlState.INVALID_TOKEN,
                resource, 0, -1);
    }

    /**
     * No token, after the connection's own token or resource was forgotten because the connection was handed back
     * ({@code clearWarnings()} or {@code endRequest()}, which pools call when a borrower returns it).
     */
    public static FencingRefusedException forgottenToken(String resource) {
        return new FencingRefusedException("fencing: no token for resource '" + resource + "': the token set on this"
                + " connection was forgotten when the connection was handed back (a pool's clearWarnings() or"
                + " endRequest()), so it never reaches the next borrower. Set it again after each borrow, or use"
                + " Fencing.scope(resource, token)", "no token for resource '" + resource
                + "' (the connection's token ended when it was handed back)", FencingSqlState.INVALID_TOKEN,
                resource, 0, -1);
    }

    /** {@code fencing.token.file} names a file that is not there (yet): no token, said in plain words. */
    public static FencingRefusedException missingTokenFile(String resource, java.nio.file.Path file) {
        return new FencingRefusedException("fencing: no token for resource '" + resource + "': the token file "
                + file.toAbsolutePath() + " (" + FencingProperty.TOKEN_FILE.getName() + ") does not exist; nothing was"
                + " changed",
                "no token for resource '" + resource + "' (the token file does not exist)",
                FencingSqlState.INVALID_TOKEN, resource, 0, -1);
    }

    public static FencingRefusedException invalidToken(String resource, String source, String value) {
        return new FencingRefusedException("fencing: invalid token " + quote(value) + " from " + source
                + " for resource '" + resource + "': a token is a positive 64-bit integer",
                "invalid token from " + source + " for resource '" + resource + "'", FencingSqlState.INVALID_TOKEN,
                resource, 0, -1);
    }

    public static FencingRefusedException stale(String resource, long token, long highWaterMark) {
        return new FencingRefusedException("fencing: stale token " + token + " for resource '" + resource
                + "': the resource has accepted token " + highWaterMark + "; nothing was changed",
                "stale token for resource '" + resource + "' (a newer owner has written)", FencingSqlState.STALE_TOKEN,
                resource, token, highWaterMark);
    }

    /**
     * The guard found the mark below a token this connection saw committed (the transaction that raised it rolled
     * back after all): the caller's transaction is aborted by the database and nothing of the statement ran.
     */
    public static FencingRefusedException behind(String resource, long token) {
        return cannotGuard("the epoch of resource '" + resource + "' is below token " + token
                + ", which this connection saw committed; the transaction that raised it must have rolled back."
                + " The database aborted this transaction: roll it back and run it again");
    }

    public static FencingRefusedException notIssued(String resource, long token, long issued) {
        return new FencingRefusedException("fencing: token " + token + " for resource '" + resource
                + "' was never issued: the issuer has handed out tokens up to " + issued + "; nothing was changed",
                "token never issued for resource '" + resource + "'", FencingSqlState.TOKEN_NOT_ISSUED, resource, token,
                -1);
    }

    public static FencingRefusedException cannotGuard(String why) {
        return new FencingRefusedException("fencing: statement cannot be guarded and was refused: " + why,
                "cannot be guarded: " + why, FencingSqlState.CANNOT_GUARD, null, 0, -1);
    }

    /** A write to one of the fence's own tables; {@code kind} is "epoch" or "lease". */
    public static FencingRefusedException protectedTable(String kind, String table) {
        return new FencingRefusedException("fencing: the " + kind + " table '" + table
                + "' cannot be changed through the fencing driver", "writes the " + kind + " table '" + table + "'",
                FencingSqlState.PROTECTED, null, 0, -1);
    }

    public static FencingRefusedException unwrapRefused(Class<?> type) {
        return new FencingRefusedException("fencing: unwrap to " + type.getName()
                + " would hand out an unguarded object; set " + FencingProperty.UNWRAP.getName()
                + "=allow to permit it",
                "unwrap to " + type.getName() + " (an unguarded vendor object)", FencingSqlState.PROTECTED, null, 0, -1);
    }

    private static String quote(String value) {
        if (value == null) {
            return "(none)";
        }
        String shown = value.length() > 40 ? value.substring(0, 40) + "..." : value;
        return "'" + shown + "'";
    }
}
