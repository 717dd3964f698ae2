package dev.fencing.jdbc;


import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The tokens this process holds, for all its threads: the {@link TokenSource} that coordinator modules feed when a
 * holder (a leader) writes from many threads. Name it in the settings,
 * {@code fencing.token.source=dev.fencing.jdbc.HeldTokens}; while a {@link Hold} is open, every such connection of
 * this process writes to the hold's resource with its token, unless a thread scope or the connection's own token
 * says otherwise (they take precedence). When several holds of one resource are open, the greatest token is in
 * force; with none open, the connection has no token from here (a write is refused, {@code ZF001}).
 */
public final class HeldTokens implements TokenSource {
    /** Open holds by resource; a closed hold is removed at once. */
    private static final Map<String, List<Hold>> HELD = new ConcurrentHashMap<>();

    /** Created by the driver from the {@code fencing.token.source} setting; every instance reads the same holds. */
    public HeldTokens() {
    }

    /**
     * Holds {@code token} for {@code resource} for this whole process until the returned hold is closed.
     *
     * @throws IllegalArgumentException when {@code resource} is not a valid resource name or {@code token} is not
     *                                  positive
     */
    public static Hold hold(String resource, long token) {
        Fencing.requireValid("hold", resource, token);
        Hold hold = new Hold(resource, token);
        HELD.compute(resource, (r, holds) -> {
            List<Hold> open = holds == null ? new CopyOnWriteArrayList<>() : holds;
            open.add(hold);
            return open;
        });
        return hold;
    }

    /** The greatest token held now for {@code resource}, or empty. */
    public static OptionalLong held(String resource) {
        List<Hold> holds = HELD.get(resource);
        if (holds == null) {
            return OptionalLong.empty();
        }
        return holds.stream().mapToLong(Hold::token).max();
    }

    @Override
    public OptionalLong token(String resource) {
        return held(resource);
    }

    /** A token held for the whole process; closing it (from any thread, any number of times) ends it. */
    public static final class Hold implements AutoCloseable {
        private final String resource;
        private final long token;

        private Hold(String resource, long token) {
            this.resource = resource;
            this.token = token;
        }

        public String resource() {
            return resource;
        }

        public long token() {
            return token;
        }

        @Override
        public void close() {
            HELD.computeIfPresent(resource, (r, holds) -> {
                holds.remove(this);
                return holds.isEmpty() ? null : holds;
            });
        }

        @Override
        public String toString() {
            return "fencing hold " + resource + "@" + token;
        }
    }
}
