package dev.fencing.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * The guard statement sent ahead of a caller's untouched text: its SQL with {@code ?} markers, and which marker
 * takes the resource and which the token. Bound as parameters for prepared statements, or written as literals for
 * plain {@code Statement}s.
 */
public final class GuardedSql {
    /** What one {@code ?} marker of the guard stands for. */
    public enum Marker { RESOURCE, TOKEN }

    private final String sql;
    private final List<Marker> markers;
    private final int[] offsets;

    /**
     * @param sql     the guard's text; its only {@code ?} characters are its markers
     * @param markers what each marker stands for, in text order
     * @throws IllegalArgumentException when the text holds another number of {@code ?} than {@code markers}
     */
    public GuardedSql(String sql, List<Marker> markers) {
        List<Integer> found = new ArrayList<>();
        for (int i = sql.indexOf('?'); i >= 0; i = sql.indexOf('?', i + 1)) {
            found.add(i);
        }
        if (found.size() != markers.size()) {
            throw new IllegalArgumentException("guard " + sql + " has " + found.size() + " markers, not "
                    + markers.size());
        }
        this.sql = sql;
        this.markers = List.copyOf(markers);
        this.offsets = found.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The guard's text, with {@code ?} at its markers. */
    public String sql() {
        return sql;
    }

    /** The guard's markers in text order; the caller's own markers come after them. */
    public List<Marker> markers() {
        return markers;
    }

    /**
     * The guard with the resource and token written as literals, for plain {@code Statement}s that have no
     * parameters. The resource must be a valid {@link ResourceName} (see {@link #appendStringLiteral}); the token
     * is a number.
     *
     * @throws IllegalArgumentException when {@code resource} is not a valid resource name
     */
    public String withLiterals(String resource, long token) {
        StringBuilder out = new StringBuilder(sql.length() + 2 * resource.length() + 48);
        int from = 0;
        for (int i = 0; i < offsets.length; i++) {
            out.append(sql, from, offsets[i]);
            if (markers.get(i) == Marker.RESOURCE) {
                appendStringLiteral(out, resource);
            } else {
                out.append(token);
            }
            from = offsets[i] + 1;
        }
        return out.append(sql, from, sql.length()).toString();
    }

    /**
     * Appends {@code value}, a valid {@link ResourceName}, between single quotes. Such a value holds no quote,
     * backslash or non-ASCII character, so the literal reads the same whatever the session's quoting rules
     * ({@code standard_conforming_strings}, backslash escapes) and client encoding; anything else is refused
     * rather than escaped for one set of rules.
     *
     * @throws IllegalArgumentException when {@code value} is not a valid resource name
     */
    public static void appendStringLiteral(StringBuilder out, String value) {
        String problem = ResourceName.problem(value);
        if (problem != null) {
            throw new IllegalArgumentException("fencing: not written into SQL: " + problem);
        }
        out.append('\'').append(value).append('\'');
    }

    @Override
    public String toString() {
        return sql;
    }
}
