package dev.fencing.jdbc;

/**
 * The thread-scoped token API: code inside {@code try (var scope = Fencing.scope("orders", 7)) { ... }} writes
 * as the owner of {@code orders} with token 7, through any fencing connection it uses on this thread, pooled
 * or not. A scope takes precedence over every other token source; scopes nest, and closing one restores the
 * one around it.
 */
public final class Fencing {
    private static final ThreadLocal<Scope> CURRENT = new ThreadLocal<>();

    private Fencing() {
    }

    /** Opens a scope that fences writes on this thread as {@code resource} with {@code token}. */
    public static Scope scope(String resource, long token) {
        if (resource == null || resource.isBlank()) {
            throw new IllegalArgumentException("fencing scope needs a resource name");
        }
        if (token <= 0) {
            throw new IllegalArgumentException("fencing token must be positive, was " + token);
        }
        Scope scope = new Scope(resource, token, CURRENT.get());
        CURRENT.set(scope);
        return scope;
    }

    /** The innermost open scope of this thread, or {@code null}. */
    public static Scope current() {
        return CURRENT.get();
    }

    /** An open token scope; close it on the thread that opened it. */
    public static final class Scope implements AutoCloseable {
        private final String resource;
        private final long token;
        private final Scope outer;
        private boolean closed;

        private Scope(String resource, long token, Scope outer) {
            this.resource = resource;
            this.token = token;
            this.outer = outer;
        }

        public String resource() {
            return resource;
        }

        public long token() {
            return token;
        }

        /** Ends the scope; the scope around it (if any) is in force again. Closing twice does nothing. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (CURRENT.get() == this) {
                if (outer == null) {
                    CURRENT.remove();
                } else {
                    CURRENT.set(outer);
                }
            }
        }

        @Override
        public String toString() {
            return "fencing scope " + resource + "@" + token;
        }
    }
}
