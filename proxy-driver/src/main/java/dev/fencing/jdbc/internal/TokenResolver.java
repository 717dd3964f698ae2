package dev.fencing.jdbc.internal;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.TokenSource;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * Decides which resource and token are in force for one connection at the moment a statement runs. Precedence,
 * highest first: the thread's {@link Fencing} scope; the connection's own token and resource (typed setters,
 * {@code setClientInfo}, {@code SET fencing.*}); then the static sources: {@code fencing.token},
 * {@code fencing.token.file}, {@code fencing.token.source}, and the environment variable.
 */
final class TokenResolver {
    private final Settings settings;
    private final TokenFile tokenFile;
    private final TokenSource tokenSource;
    private String connectionResource;
    private long connectionToken;

    TokenResolver(Settings settings) throws SQLException {
        this.settings = settings;
        String file = settings.get(Settings.TOKEN_FILE);
        this.tokenFile = file == null || file.isBlank() ? null : new TokenFile(Path.of(file.trim()));
        this.tokenSource = instantiate(settings.get(Settings.TOKEN_SOURCE));
    }

    private static TokenSource instantiate(String className) throws SQLException {
        if (className == null || className.isBlank()) {
            return null;
        }
        try {
            Class<?> type = Class.forName(className.trim(), true, Thread.currentThread().getContextClassLoader() != null
                    ? Thread.currentThread().getContextClassLoader() : TokenResolver.class.getClassLoader());
            if (!TokenSource.class.isAssignableFrom(type)) {
                throw Settings.configuration(Settings.TOKEN_SOURCE + ": " + className + " does not implement "
                        + TokenSource.class.getName());
            }
            return (TokenSource) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw Settings.configuration(Settings.TOKEN_SOURCE + ": cannot create " + className + ": " + e);
        }
    }

    /** The resource a statement run now is guarded for. */
    String resource() {
        Fencing.Scope scope = Fencing.current();
        if (scope != null) {
            return scope.resource();
        }
        if (connectionResource != null) {
            return connectionResource;
        }
        String configured = settings.resource();
        if (configured != null) {
            return configured;
        }
        String fromEnv = System.getenv(settings.resourceEnvName());
        return fromEnv == null || fromEnv.isBlank() ? Settings.DEFAULT_RESOURCE : fromEnv.trim();
    }

    /** The valid token in force for {@code resource}; a missing or invalid one is refused (SPEC C1). */
    long token(String resource) throws FencingRefusedException {
        long token = find(resource);
        if (token == 0) {
            throw Refusals.missingToken(resource);
        }
        return token;
    }

    /** The valid token in force, 0 when none is; invalid values are refused. */
    long find(String resource) throws FencingRefusedException {
        Fencing.Scope scope = Fencing.current();
        if (scope != null) {
            return scope.token();
        }
        if (connectionToken > 0) {
            return connectionToken;
        }
        String configured = settings.get(Settings.TOKEN);
        if (configured != null) {
            return valid(resource, Settings.TOKEN + " setting", configured);
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

    private long fromFile(String resource) throws FencingRefusedException {
        String text;
        try {
            text = tokenFile.read();
        } catch (IOException e) {
            throw Refusals.invalidToken(resource, "token file " + tokenFile.path() + " (unreadable: " + e + ")", null);
        }
        if (text == null) {
            throw Refusals.invalidToken(resource, "token file " + tokenFile.path() + " (missing)", null);
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

    /** Sets the connection's token from text (client info, SQL): invalid text is refused and changes nothing. */
    void setConnectionToken(String text, String source) throws FencingRefusedException {
        if (text == null) {
            connectionToken = 0;
            return;
        }
        long token = TokenText.parse(text);
        if (token < 0) {
            throw Refusals.invalidToken(resource(), source, text);
        }
        connectionToken = token;
    }

    void setConnectionToken(long token) throws FencingRefusedException {
        if (token <= 0) {
            throw Refusals.invalidToken(resource(), "setFencingToken", Long.toString(token));
        }
        connectionToken = token;
    }

    void clearConnectionToken() {
        connectionToken = 0;
    }

    long connectionToken() {
        return connectionToken;
    }

    /** Sets the connection's resource; {@code null} or blank returns to the configured one. */
    void setConnectionResource(String resource) {
        connectionResource = resource == null || resource.isBlank() ? null : resource.trim();
    }

    String connectionResource() {
        return connectionResource;
    }
}
