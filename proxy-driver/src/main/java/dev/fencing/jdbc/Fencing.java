package dev.fencing.jdbc;

import dev.fencing.sql.ResourceName;

import java.util.ArrayList;

/**
 * The thread-scoped token API: code inside {@code try (var scope = Fencing.scope("orders", 7)) { ... }} writes
 * as the owner of {@code orders} with token 7, through any fencing connection it uses on this thread, pooled
 * or not. A scope takes precedence over every other token source. Scopes nest: the innermost scope still open
 * is in force, and a closed scope never applies again, whatever order scopes are closed in.
 *
 * <p>A scope may hold tokens for several resources ({@link Scope#with}), for tables mapped to different resources
 * (SPEC C11): {@code Fencing.scope("billing", 7).with("reports", 3)}. Its first resource is the one unmapped tables
 * are fenced for; a token for another resource is looked for in the innermost open scope that holds one, so nested
 * scopes add resources.
 */
public final class Fencing {
    /** This thread's open scopes, outermost first; closed ones are dropped as soon as this thread looks. */
    private static final ThreadLocal<ArrayList<Scope>> OPEN = new ThreadLocal<>();

    private Fencing() {
    }

    /**
     * The one check of a resource and token handed to the driver in code (a scope, a process-wide hold):
     * {@code IllegalArgumentException} naming {@code what} when the name breaks the rule or the token is not positive.
     */
    static void requireValid(String what, String resource, long token) {
        String problem = ResourceName.problem(resource);
        if (problem != null) {
            throw new IllegalArgumentException("fencing " + what + ": " + problem);
        }
        if (token <= 0) {
            throw new IllegalArgumentException("fencing token must be positive, was " + token);
        }
    }

    /**
     * Opens a scope that fences writes on this thread as {@code resource} with {@code token}.
     *
     * @throws IllegalArgumentException when {@code resource} is not a valid resource name (1 to 200 characters
     *                                  from {@code A-Z a-z 0-9 _ . : / @ + = -}) or {@code token} is not positive
     */
    public static Scope scope(String resource, long token) {
        requireValid("scope", resource, token);
        current();
        ArrayList<Scope> open = OPEN.get();
        if (open == null) {
            open = new ArrayList<>();
            OPEN.set(open);
        }
        Scope scope = new Scope(resource, token, Thread.currentThread());
        open.add(scope);
        return scope;
    }

    /** The innermost open scope of this thread, or {@code null}. */
    public static Scope current() {
        ArrayList<Scope> open = OPEN.get();
        if (open == null) {
            return null;
        }
        open.removeIf(scope -> scope.closed);
        if (open.isEmpty()) {
            OPEN.remove();
            return null;
        }
        return open.get(open.size() - 1);
    }

    /**
     * The token this thread's open scopes hold for {@code resource}, from the innermost scope that holds one; 0 when
     * none does.
     */
    public static long tokenFor(String resource) {
        ArrayList<Scope> open = OPEN.get();
        if (open == null) {
            return 0;
        }
        for (int i = open.size() - 1; i >= 0; i--) {
            Scope scope = open.get(i);
            Long token = scope.closed ? null : scope.tokens.get(resource);
            if (token != null) {
                return token;
            }
        }
        return 0;
    }

    /** An open token scope; close it on the thread that opened it (a close on another thread also ends it). */
    public static final class Scope implements AutoCloseable {
        private final String resource;
        private final long token;
        private final Thread owner;
        /** Every resource this scope holds a token for, its first resource first. */
        private final java.util.Map<String, Long> tokens = new java.util.concurrent.ConcurrentHashMap<>(4);
        private volatile boolean closed;

        private Scope(String resource, long token, Thread owner) {
            this.resource = resource;
            this.token = token;
            this.owner = owner;
            this.tokens.put(resource, token);
        }

        /**
         * Adds a token for another resource to this scope, for writes to tables mapped to it (SPEC C11); returns this
         * scope.
         *
         * @throws IllegalArgumentException for an invalid name or token, or a second token for a resource it holds
         * @throws IllegalStateException    when the scope is closed
         */
        public Scope with(String resource, long token) {
            requireValid("scope", resource, token);
            if (closed) {
                throw new IllegalStateException("fencing scope is closed: " + this);
            }
            Long before = tokens.putIfAbsent(resource, token);
            if (before != null && before != token) {
                throw new IllegalArgumentException("fencing scope holds token " + before + " for resource '" + resource
                        + "' already; open a new scope for token " + token);
            }
            return this;
        }

        /** The resources this scope holds tokens for, and the tokens. */
        public java.util.Map<String, Long> tokens() {
            return java.util.Collections.unmodifiableMap(tokens);
        }

        public String resource() {
            return resource;
        }

        public long token() {
            return token;
        }

        /**
         * Ends the scope for good: the innermost scope still open (if any) is in force again. Closing twice does
         * nothing.
         */
        @Override
        public void close() {
            closed = true;
            if (Thread.currentThread() == owner) {
                current();
            }
        }

        @Override
        public String toString() {
            StringBuilder held = new StringBuilder();
            tokens.forEach((r, t) -> held.append(held.length() == 0 ? "" : ", ").append(r).append('@').append(t));
            return "fencing scope " + held + (closed ? " (closed)" : "");
        }
    }
}
