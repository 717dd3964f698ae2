package dev.fencing.jdbc.audit;

import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.FencingSqlState;

import java.sql.SQLException;
import java.util.List;

/** Builds every refusal the fence raises, so their wording and SQLStates stay in one place. */
public final class Refusals {
    private Refusals() {
    }

    /**
     * The session fence closed a connection asked to move from the token its server session is registered at to
     * another one ({@code 08006}); counted and logged like every refusal, since no statement's policy sees it.
     */
    public static SQLException closedForNewToken(String resource, long held, long token) {
        FencingRefusedException closed = new FencingRefusedException("fencing: this connection is fenced at token "
                + held + " of resource '" + resource + "' (" + FencingProperty.GUARD.getName() + "=session) and cannot"
                + " move to token " + token + ": it was closed, nothing was changed; take a new connection for the new"
                + " token", "connection fenced at token " + held + " closed when asked for token " + token,
                SqlStates.CONNECTION_FAILURE, resource, token, -1);
        FenceMetrics.of(resource).refused(closed, "(the connection was closed)", true);
        // thrown as what it is, a closed connection (08006), not as a refusal of the token, which is not stale
        return new SQLException(closed.getMessage(), SqlStates.CONNECTION_FAILURE);
    }

    /** The server holds this session's registration at another token than the driver believed. */
    public static SQLException registrationMismatch(String resource, long held, long token) {
        return new SQLException("fencing: the server holds this session's registration for resource '" + resource
                + "' at token " + held + ", not " + token + "; nothing was changed", FencingSqlState.CANNOT_GUARD);
    }

    /** The advance of a mark kept losing the race for the epoch row. */
    public static SQLException epochRowRaces(String resource) {
        return new SQLException("fencing: could not lock the epoch row of '" + resource + "' after repeated races"
                + " (or the session hides the row from the fence's own reads); nothing was changed",
                FencingSqlState.CANNOT_GUARD);
    }

    /** {@code execute(String)} on a prepared {@code SET fencing.*}: it takes its value from its parameter. */
    public static SQLException preparedSettingWithText() {
        return new SQLException("fencing: a prepared SET fencing.* takes no query string", FencingSqlState.CANNOT_GUARD);
    }

    /**
     * No token in force: names every place one could have come from, the environment variable that was looked at,
     * and, for the placeholder resource, that the application has not named its resource.
     */
    public static FencingRefusedException missingToken(String resource, String tokenEnvName) {
        return new FencingRefusedException("fencing: no token for resource '" + resource
                + "': a mutation needs a fencing token, and none was set by a scope (Fencing.scope), on the"
                + " connection (setClientInfo or SET fencing.token), in the settings (fencing.token,"
                + " fencing.token.file, fencing.token.source) or in the environment variable " + tokenEnvName
                + (tokenEnvName.equals(FencingProperty.DEFAULT_TOKEN_ENV) ? "" : " (fencing.token.env)")
                + (resource.equals(FencingProperty.DEFAULT_RESOURCE) ? "; '" + resource + "' is the placeholder"
                + " resource: name yours with fencing.resource" : ""),
                "no token for resource '" + resource + "'", FencingSqlState.INVALID_TOKEN, resource, 0, -1);
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

    /**
     * A static token setting ({@code fencing.token}) that is not a token: refused when the connection is opened, so
     * the mistake shows at once rather than at the first write.
     */
    public static SQLException invalidTokenSetting(String setting, String value) {
        return new SQLException("fencing: invalid token " + quote(value) + " in the " + setting + " setting: a token"
                + " is a positive 64-bit integer (decimal digits only); the connection was not opened",
                FencingSqlState.INVALID_TOKEN);
    }

    /** {@code highWaterMark} is negative when the guard could not say it (the mark is above the token). */
    public static FencingRefusedException stale(String resource, long token, long highWaterMark) {
        return new FencingRefusedException("fencing: stale token " + token + " for resource '" + resource
                + "': the resource has accepted " + (highWaterMark < 0 ? "a newer token" : "token " + highWaterMark)
                + "; nothing was changed",
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

    /**
     * A mutation in a transaction that began without a current token: the server runs it read-only (SPEC C10), and
     * only a transaction that starts with the token in force is admitted.
     */
    public static FencingRefusedException transactionNotAdmitted(String resource) {
        return new FencingRefusedException("fencing: this transaction began without a current token for resource '"
                + resource + "', so the server runs it read-only; nothing was changed. Roll it back and start it"
                + " with the token in force (a scope, the connection's token, SET fencing.token) before its first"
                + " statement", "transaction began without a current token for resource '" + resource + "'",
                FencingSqlState.INVALID_TOKEN, resource, 0, -1);
    }

    /**
     * The server refused a write in work no current token admitted (its read-only mode, SPEC C10): a write the
     * driver took for a read, or one hidden in a function. The server's own error is the cause.
     */
    public static FencingRefusedException refusedByReadOnlyServer(String resource, java.sql.SQLException server) {
        FencingRefusedException refusal = new FencingRefusedException("fencing: the database refused a write in work"
                + " no current token for resource '" + resource + "' admitted (it runs read-only on the server):"
                + " nothing was changed. The database said: " + server.getMessage(),
                "write without an admitted token for resource '" + resource + "' refused by the server",
                FencingSqlState.INVALID_TOKEN, resource, 0, -1);
        refusal.initCause(server);
        return refusal;
    }

    /**
     * An advance waited for a lock longer than its bound ({@code lock_timeout}, or {@code defaultBoundMs} when the
     * session's is 0): PostgreSQL's own {@code 55P03}, which callers may retry, naming the sessions that held it.
     */
    public static SQLException advanceHeldOff(String resource, long token, int defaultBoundMs, List<String> holders,
                                              SQLException cause) {
        SQLException e = new SQLException("fencing: the epoch of resource '" + resource + "' could not be advanced to"
                + " token " + token + ": a lock it waits for (the resource's advisory lock or its epoch row) was held"
                + " longer than lock_timeout (" + defaultBoundMs + " ms when the session's is 0) by "
                + (holders.isEmpty() ? "a session that has let it go since" : String.join(", ", holders))
                + "; nothing was changed. End that session's transaction (or the session), then retry",
                SqlStates.LOCK_NOT_AVAILABLE);
        e.initCause(cause);
        return e;
    }

    /**
     * A write under a resource name that is not known (SPEC C11): neither declared nor mapped, without a mark or a
     * lease; {@code nearest} are known names that look like it, {@code why} says why none can be known (or null).
     */
    public static FencingRefusedException undeclaredResource(String resource, List<String> nearest, String why) {
        String near = nearest.isEmpty() ? "" : " Did you mean " + String.join(" or ", nearest.stream()
                .map(n -> "'" + n + "'").toList()) + "?";
        return new FencingRefusedException("fencing: resource '" + resource + "' is not declared, so no token can"
                + " authorise a write for it (a misspelt or differently cased name is never a new resource)." + near
                + " Declare it with 'fencing declare " + resource + "' (or acquire it from the token issuer), or set "
                + "fencing.resources=any; nothing was changed" + (why == null ? "" : " (" + why + ")"),
                "undeclared resource '" + resource + "'", FencingSqlState.INVALID_TOKEN, resource, 0, -1);
    }

    /**
     * A write to a table mapped to {@code resource} (SPEC C11) without a token for it: the connection's own resource
     * ({@code own}) does not count.
     */
    public static FencingRefusedException missingMappedToken(String resource, String own) {
        return new FencingRefusedException("fencing: the statement changes a table that belongs to resource '" + resource
                + "', and no token for '" + resource + "' is in force (the connection writes as '" + own + "'): hold one"
                + " with Fencing.scope(\"" + own + "\", token).with(\"" + resource + "\", token) or a token source;"
                + " nothing was changed", "no token for resource '" + resource + "' (a mapped table)",
                FencingSqlState.INVALID_TOKEN, resource, 0, -1);
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

    // ---- statements refused while they are classified (StatementRouter) or run (FencedExecution) ----------------

    /** A prepared text whose '?' in a string or comment a client-side interpolating driver could take for a marker. */
    public static FencingRefusedException questionMarkInText() {
        return cannotGuard("a prepared text with a '?' inside a string, a quoted name or a comment, and a driver that"
                + " puts parameter values into the text itself (MariaDB/MySQL Connector/J, pgjdbc's simple query mode),"
                + " which may take it for a placeholder: write the character another way (CHAR(63), chr(63)) or use"
                + " server-side prepared statements");
    }

    /** MariaDB/MySQL: a change of the client character set to one in which a quote can be part of a character. */
    public static FencingRefusedException clientCharset() {
        return cannotGuard("a change of the client character set (SET NAMES, SET CHARACTER SET, character_set_client)"
                + " to anything but utf8mb4, utf8mb3, utf8, latin1 or ascii: the driver reads SQL in the connection's"
                + " character set; set it in the URL");
    }

    /**
     * A call of a function whose work no guard can cover: another session or a background worker (dblink,
     * pg_background), or an H2 function that gets a Connection, through which it could commit the guard's
     * transaction. {@code name} is "" when the text spells it with Unicode escapes.
     */
    public static FencingRefusedException unfenceableFunction(String name) {
        return cannotGuard((name.isEmpty() ? "a function named with Unicode escapes, which" : "the function " + name
                + ", which") + " may do work outside the guard's transaction (open another session or a background"
                + " worker (dblink, pg_background), or, on H2, commit through the Connection it is given), where it"
                + " could commit after a newer owner's mark: run it through the underlying driver");
    }

    /** Two-phase commit under the session fence. */
    public static FencingRefusedException prepareTransactionUnderSessionFence() {
        return cannotGuard("PREPARE TRANSACTION with " + FencingProperty.GUARD.getName() + "=session: a prepared"
                + " transaction outlives the session an epoch change ends, so its writes could commit after the new"
                + " mark");
    }

    /** A text of several statements, one of which may commit on its own between the others. */
    public static FencingRefusedException textMayEndTransaction() {
        return cannotGuard("several statements in one text, one of which may end the transaction (DDL commits on its"
                + " own here): send them as separate statements");
    }

    /** Transaction control or {@code SET fencing.*} added to a batch. */
    public static FencingRefusedException notInBatch() {
        return cannotGuard("transaction control and SET fencing.* cannot be part of a batch");
    }

    /** A batch that writes and holds a statement that may commit on its own between the others. */
    public static FencingRefusedException batchMayEndTransaction() {
        return cannotGuard("a batch that writes and holds a statement that may end the transaction (DDL commits on"
                + " its own here): run that statement on its own");
    }

    /**
     * MariaDB/MySQL: a write needing the guard while the session holds table locks ({@code LOCK TABLES}). The guard
     * cannot run inside them (the server lets the session read only the tables it locked, and the epoch table cannot
     * be one), and its own transaction would release them ({@code START TRANSACTION} does), so that the write could
     * run where the raw driver refuses it (a {@code TRUNCATE} of a table locked {@code READ}).
     */
    public static FencingRefusedException tableLocksHeld() {
        return cannotGuard("the session holds table locks (LOCK TABLES), which the guard's own transaction would"
                + " release, and under which the server lets it read no epoch row; nothing was sent and the locks are"
                + " still held. Run UNLOCK TABLES before writing with a token, or lock rows in a transaction instead"
                + " (START TRANSACTION, SELECT ... FOR UPDATE)");
    }

    /** {@code addBatch(String)} on a prepared statement. */
    public static FencingRefusedException textInPreparedBatch() {
        return cannotGuard("addBatch(String) on a PreparedStatement: the text would join the batch unanalysed");
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

    /**
     * A server message without the lines it adds for a console (PostgreSQL's {@code Position: 29}, H2's SQL
     * statement echo), which mean nothing to the reader of a configuration error.
     */
    public static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int end = message.indexOf('\n');
        String line = (end < 0 ? message : message.substring(0, end)).trim();
        int echo = line.indexOf("; SQL statement:");
        return echo < 0 ? line : line.substring(0, echo);
    }

}
