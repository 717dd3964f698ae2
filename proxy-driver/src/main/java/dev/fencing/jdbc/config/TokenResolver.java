package dev.fencing.jdbc.config;

import dev.fencing.jdbc.audit.SqlStates;
import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.TokenSource;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.OptionalLong;

/**
 * Decides which resource and token are in force for one connection at the moment a statement runs. Precedence,
 * highest first: the thread's {@link Fencing} scope; on PostgreSQL, a {@code SET LOCAL fencing.token} of the
 * transaction the server has open now; the connection's own token and resource (typed setters,
 * {@code setClientInfo}, {@code SET fencing.*}), which last until the connection is handed back to its pool
 * ({@link #handedBack()}); then the static sources: {@code fencing.token},
 * {@code fencing.token.file}, {@code fencing.token.source}, and the environment variable. Every resource name is
 * checked against {@link dev.fencing.sql.ResourceName} where it enters.
 */
public final class TokenResolver {
    private final Settings settings;
    private final Connection raw;
    private final TokenFile tokenFile;
    private final TokenSource tokenSource;
    /** The configured resource, else the environment's, else {@link Settings#DEFAULT_RESOURCE}; checked at connect. */
    private final String staticResource;
    private String connectionResource;
    private long connectionToken;
    /** The resource the URL or properties pin ({@code fencing.resource}), or {@code null}. */
    private final String pinnedResource;
    /** The last other name a scope or setting gave while a resource is pinned: logged once, not per statement. */
    private String overriddenBy;
    /** Tokens set for named resources by {@code SET fencing.token.<resource>} (SPEC C11); empty until one is. */
    private final java.util.Map<String, Long> resourceTokens = new java.util.HashMap<>(4);
    /**
     * Whether a token or resource set on this connection was forgotten when the connection was handed back
     * ({@link #handedBack()}), so a refusal for a missing token can say why; setting a token again ends it.
     */
    private boolean forgotten;
    /**
     * Whether this connection has sent {@code SET LOCAL fencing.token}: from then on every resolution asks the
     * server for the value in its current transaction, since only the server knows when that transaction ended.
     */
    private boolean localTokens;
    /** The server transaction the last {@code SET LOCAL fencing.token} was sent in (its id, which the server assigns). */
    private String localTransaction;

    public TokenResolver(Settings settings, Connection raw) throws SQLException {
        this.settings = settings;
        this.raw = raw;
        String file = settings.text(FencingProperty.TOKEN_FILE);
        this.tokenFile = file == null || file.isBlank() ? null : new TokenFile(Path.of(file.trim()));
        this.tokenSource = instantiate(settings.text(FencingProperty.TOKEN_SOURCE));
        String resource = settings.resource();
        this.pinnedResource = resource;
        if (resource == null) {
            resource = Settings.resourceName(System.getenv(settings.resourceEnvName()),
                    "environment variable " + settings.resourceEnvName());
        }
        this.staticResource = resource == null ? FencingProperty.DEFAULT_RESOURCE : resource;
    }

    private static TokenSource instantiate(String className) throws SQLException {
        if (className == null || className.isBlank()) {
            return null;
        }
        try {
            Class<?> type = Class.forName(className.trim(), true, Thread.currentThread().getContextClassLoader() != null
                    ? Thread.currentThread().getContextClassLoader() : TokenResolver.class.getClassLoader());
            if (!TokenSource.class.isAssignableFrom(type)) {
                throw Settings.configuration(FencingProperty.TOKEN_SOURCE.getName() + ": " + className
                        + " does not implement "
                        + TokenSource.class.getName());
            }
            return (TokenSource) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw Settings.configuration(FencingProperty.TOKEN_SOURCE.getName() + ": cannot create " + className
                    + ": " + e);
        }
    }

    /** The connection's own resource, without a scope: what its own and static tokens are for. */
    private String ownResource() {
        return connectionResource != null ? connectionResource : staticResource;
    }

    /** The resource a statement run now is guarded for. */
    public String resource() {
        Fencing.Scope scope = Fencing.current();
        if (scope != null) {
            String named = scope.resource();
            if (pinnedResource != null && !named.equals(pinnedResource)) {
                overridden(named, "a Fencing.scope");
            }
            return named;
        }
        return connectionResource != null ? connectionResource : staticResource;
    }

    /** Logs, once per name in a row, that {@code named} stands in for the pinned resource. */
    private void overridden(String named, String by) {
        if (!named.equals(overriddenBy)) {
            overriddenBy = named;
            dev.fencing.jdbc.audit.FenceMetrics.resourceOverridden(pinnedResource, named, by);
        }
    }

    /** The valid token in force for {@code resource}; a missing or invalid one is refused (SPEC C1). */
    public long token(String resource) throws SQLException {
        long token = find(resource);
        if (token == 0) {
            throw forgotten ? Refusals.forgottenToken(resource) : Refusals.missingToken(resource, settings.tokenEnvName());
        }
        return token;
    }

    /**
     * Whether finding the token may ask the server (a {@code SET LOCAL fencing.token} was used on this connection:
     * the server keeps it for its transaction).
     */
    public boolean asksServer() {
        return localTokens;
    }

    /** The valid token in force, 0 when none is; invalid values are refused. */
    public long find(String resource) throws SQLException {
        Fencing.Scope scope = Fencing.current();
        if (scope != null) {
            long scoped = Fencing.tokenFor(resource);
            if (scoped > 0 || resource.equals(scope.resource())) {
                return scoped;
            }
        }
        if (!resourceTokens.isEmpty()) {
            Long named = resourceTokens.get(resource);
            if (named != null) {
                return named;
            }
        }
        if (!resource.equals(ownResource())) {
            // a resource a mapped table belongs to (SPEC C11): the connection's own tokens are for its own resource
            return tokenSource != null ? fromSource(resource) : fromTokensEnv(resource);
        }
        if (localTokens) {
            long local = localToken(resource);
            if (local > 0) {
                return local;
            }
        }
        if (connectionToken > 0) {
            return connectionToken;
        }
        if (settings.staticToken() > 0) {
            return settings.staticToken();
        }
        if (tokenFile != null) {
            return fromFile(resource);
        }
        if (tokenSource != null) {
            return fromSource(resource);
        }
        String fromEnv = System.getenv(settings.tokenEnvName());
        if (fromEnv != null) {
            return valid(resource, "environment variable " + settings.tokenEnvName(), fromEnv);
        }
        return 0;
    }

    /**
     * The {@code SET LOCAL} token of the server's current transaction, 0 when none: PostgreSQL keeps the value
     * for exactly that transaction (and undoes it with a rollback to an earlier savepoint), so the server, not
     * the driver's idea of where transactions end, says whether it still applies.
     */
    private long localToken(String resource) throws SQLException {
        String value;
        String transaction;
        try (Statement s = raw.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('" + FencingProperty.TOKEN.getName() + "', true),"
                     + " CAST(pg_catalog.pg_current_xact_id_if_assigned() AS text)")) {
            rs.next();
            value = rs.getString(1);
            transaction = rs.getString(2);
        }
        if (transaction == null || !transaction.equals(localTransaction)) {
            // Not the transaction the driver saw SET LOCAL in: a value there is a session-level setting someone made
            // with set_config(..., false), which would outlive the borrow (found by review): not a token.
            return 0;
        }
        return value == null || value.isEmpty() ? 0
                : valid(resource, "SET LOCAL " + FencingProperty.TOKEN.getName(), value);
    }

    /**
     * The token for {@code resource} in {@link FencingProperty#DEFAULT_TOKENS_ENV} ({@code resource=token} separated
     * by white space, the last {@code =} of an entry ending its name); 0 when it names none. A malformed entry (no
     * name or no token), a second entry for this resource or an invalid token for it is refused: a variable that
     * does not say one thing says nothing.
     */
    private static long fromTokensEnv(String resource) throws FencingRefusedException {
        String all = System.getenv(FencingProperty.DEFAULT_TOKENS_ENV);
        if (all == null || all.isBlank()) {
            return 0;
        }
        String source = "environment variable " + FencingProperty.DEFAULT_TOKENS_ENV;
        long found = 0;
        for (String entry : all.trim().split("\\s+")) {
            int at = entry.lastIndexOf('=');
            if (at <= 0 || at == entry.length() - 1) {
                throw Refusals.invalidToken(resource, source + " (an entry is not resource=token)", entry);
            }
            if (entry.substring(0, at).equals(resource)) {
                if (found != 0) {
                    throw Refusals.invalidToken(resource, source + " (names the resource twice)", all);
                }
                found = valid(resource, source, entry.substring(at + 1));
            }
        }
        return found;
    }

    private long fromFile(String resource) throws FencingRefusedException {
        String text;
        try {
            text = tokenFile.read();
        } catch (IOException e) {
            throw Refusals.invalidToken(resource, "token file " + tokenFile.path() + " (unreadable: " + e + ")", null);
        }
        if (text == null) {
            throw Refusals.missingTokenFile(resource, tokenFile.path());
        }
        return valid(resource, "token file " + tokenFile.path(), text);
    }

    private long fromSource(String resource) throws FencingRefusedException {
        OptionalLong token;
        try {
            token = tokenSource.token(resource);
        } catch (Exception e) {
            throw Refusals.invalidToken(resource, "token source " + tokenSource.getClass().getName()
                    + " (failed: " + e + ")", null);
        }
        if (token == null || token.isEmpty()) {
            return 0;
        }
        if (token.getAsLong() <= 0) {
            throw Refusals.invalidToken(resource, "token source " + tokenSource.getClass().getName(),
                    Long.toString(token.getAsLong()));
        }
        return token.getAsLong();
    }

    private static long valid(String resource, String source, String text) throws FencingRefusedException {
        long token = TokenText.parse(text);
        if (token < 0) {
            throw Refusals.invalidToken(resource, source, text);
        }
        return token;
    }

    /** Sets the connection's token from text (client info): invalid text is refused and changes nothing. */
    public void setConnectionToken(String text, String source) throws FencingRefusedException {
        connectionToken = text == null ? 0 : checked(text, source);
        forgotten = false;
    }

    /**
     * {@code SET fencing.token} or {@code RESET fencing.token} sent as SQL: sets or clears the connection's token
     * and, as on PostgreSQL, ends a {@code SET LOCAL} token of the current transaction (a {@code RESET} sent to
     * the server, which a rollback undoes like the server's own settings). Invalid text changes nothing.
     */
    public void setSessionToken(String text, String source) throws SQLException {
        long token = text == null ? 0 : checked(text, source);
        if (localTokens) {
            try (Statement s = raw.createStatement()) {
                s.execute("RESET " + FencingProperty.TOKEN.getName());
            }
        }
        connectionToken = token;
        forgotten = false;
    }

    /**
     * {@code SET LOCAL fencing.token} on PostgreSQL: sent to the server (the driver writes the parsed number, never
     * the caller's text), which keeps it for the current transaction only. Outside a transaction block the
     * server ignores it with a warning; that is refused here with the server's SQLState, so nobody believes a
     * token is in force that is not.
     */
    public void setLocalToken(String text, String source) throws SQLException {
        long token = checked(text, source);
        try (Statement s = raw.createStatement()) {
            s.execute("SET LOCAL " + FencingProperty.TOKEN.getName() + " = '" + token + "'");
            for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                if (SqlStates.PG_NO_ACTIVE_TRANSACTION.equals(w.getSQLState())) {
                    throw new SQLException("fencing: " + source + " outside a transaction block would apply to"
                            + " nothing and was refused: begin a transaction first (setAutoCommit(false) or BEGIN),"
                            + " or use SET " + FencingProperty.TOKEN.getName() + " for the connection",
                            SqlStates.PG_NO_ACTIVE_TRANSACTION);
                }
            }
        }
        try (Statement s = raw.createStatement();
             ResultSet rs = s.executeQuery("SELECT CAST(pg_catalog.pg_current_xact_id() AS text)")) {
            rs.next();
            localTransaction = rs.getString(1);
        }
        localTokens = true;
        forgotten = false;
    }

    /**
     * {@code SET fencing.token.<resource> = n} ({@code text}) or {@code RESET fencing.token.<resource>}
     * ({@code null}): sets or clears the connection's token for that one resource, which is in force for it ahead of
     * every other source but a thread's scope. An invalid resource name or token is refused and changes nothing.
     */
    public void setResourceToken(String resource, String text, String source) throws SQLException {
        String name = Settings.resourceName(resource, source);
        if (name == null) {
            throw Settings.configuration(source + ": the resource name is empty");
        }
        if (text == null) {
            resourceTokens.remove(name);
            return;
        }
        resourceTokens.put(name, valid(name, source, text));
        forgotten = false;
    }

    private long checked(String text, String source) throws FencingRefusedException {
        long token = TokenText.parse(text);
        if (token < 0) {
            throw Refusals.invalidToken(resource(), source, text);
        }
        return token;
    }

    public void setConnectionToken(long token) throws FencingRefusedException {
        if (token <= 0) {
            throw Refusals.invalidToken(resource(), "setFencingToken", Long.toString(token));
        }
        connectionToken = token;
        forgotten = false;
    }

    public void clearConnectionToken() {
        connectionToken = 0;
    }

    /**
     * Sets the connection's resource from {@code source}; {@code null} or blank returns to the configured one. A
     * name that breaks the resource-name rule is refused ({@code ZF006}) and changes nothing.
     */
    public void setConnectionResource(String resource, String source) throws SQLException {
        connectionResource = Settings.resourceName(resource, source);
        if (connectionResource != null && pinnedResource != null && !connectionResource.equals(pinnedResource)) {
            overridden(connectionResource, source);
        }
    }

    /**
     * The borrower is done with the connection (a pool took it back): its own token and resource are forgotten, so
     * the next borrower starts from the configured sources only. A thread's scope is untouched: it is the thread's.
     */
    public void handedBack() {
        if (connectionToken > 0 || connectionResource != null || !resourceTokens.isEmpty()) {
            forgotten = true;
        }
        connectionToken = 0;
        connectionResource = null;
        resourceTokens.clear();
    }
}
