package dev.fencing.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * The guard statement sent ahead of a caller's untouched text: its SQL with {@code ?} markers, and which marker
 * takes the resource and which the token. Bound as parameters for prepared statements, or written as literals for
 * plain {@code Statement}s.
 */
public final class GuardedSql {
    /** What one {@code ?} marker of the guard stands for: the nonce is the send's own (see {@link EpochSql#prefixGuard()}). */
    public enum Marker { RESOURCE, TOKEN, NONCE }

    private final String sql;
    private final List<Marker> markers;
    private final int[] offsets;
    /** How many statements the guard's text holds, each yielding one result ahead of the caller's. */
    private final int statements;

    /**
     * @param sql     the guard's text; its only {@code ?} characters are its markers
     * @param markers what each marker stands for, in text order
     * @throws IllegalArgumentException when the text holds another number of {@code ?} than {@code markers}, or is
     *                                  not exactly one complete statement (the PostgreSQL scanner's reading)
     */
    public GuardedSql(String sql, List<Marker> markers) {
        this(sql, markers, 1);
    }

    private GuardedSql(String sql, List<Marker> markers, int statements) {
        List<Integer> found = new ArrayList<>();
        for (int i = sql.indexOf('?'); i >= 0; i = sql.indexOf('?', i + 1)) {
            found.add(i);
        }
        if (found.size() != markers.size()) {
            throw new IllegalArgumentException("guard " + sql + " has " + found.size() + " markers, not "
                    + markers.size());
        }
        // Whatever follows the guard's ; must start a statement of its own: the guard leaves nothing open.
        String probe = "SELECT 1";
        List<Part> parts = SqlLexer.split(sql + ";" + probe, Dialect.POSTGRESQL);
        int markersFound = 0;
        for (int i = 0; i < parts.size() - 1; i++) {
            markersFound += parts.get(i).markers();
        }
        if (parts.size() != statements + 1 || markersFound != markers.size() || !SqlLexer.isClear(sql, Dialect.POSTGRESQL)
                || statements == 1 && !parts.get(0).text().equals(sql) || !parts.get(statements).text().equals(probe)) {
            throw new IllegalArgumentException("guard " + sql + " must be " + statements + " statement(s) that leave no"
                    + " string, quoted name or comment open, with only its own markers");
        }
        this.statements = statements;
        this.sql = sql;
        this.markers = List.copyOf(markers);
        this.offsets = found.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * This guard with {@code lead}, a statement without markers, sent ahead of it in the same text: PostgreSQL's
     * {@code SET TRANSACTION READ WRITE}, which only the guard's own text may send before the guard (SPEC C10).
     */
    public GuardedSql after(String lead) {
        return new GuardedSql(lead + ";" + sql, markers, statements + 1);
    }

    /** How many results the guard's text yields ahead of the caller's: one per statement. */
    public int statements() {
        return statements;
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
     * The guard with the resource, token and nonce written as literals, for plain {@code Statement}s that have no
     * parameters. The resource must be a valid {@link ResourceName} (see {@link #appendStringLiteral}); the token
     * and the nonce are numbers.
     *
     * @throws IllegalArgumentException when {@code resource} is not a valid resource name
     */
    public String withLiterals(String resource, long token, long nonce) {
        StringBuilder out = new StringBuilder(sql.length() + 2 * resource.length() + 48);
        int from = 0;
        for (int i = 0; i < offsets.length; i++) {
            out.append(sql, from, offsets[i]);
            switch (markers.get(i)) {
                case RESOURCE -> appendStringLiteral(out, resource);
                case TOKEN -> out.append(token);
                case NONCE -> out.append(nonce);
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

    /**
     * The text sent to the server for the caller's {@code text} with {@code guard} (this guard's {@link #sql()} or
     * {@link #withLiterals}) ahead of it: the two joined by {@code ;}, nothing of the caller's changed or moved.
     * Callers check the result with {@link #isGuardThenText} before sending it.
     */
    public static String ahead(String guard, String text) {
        return guard + ";" + text;
    }

    /**
     * Whether {@code sent} is exactly {@code guard}, one {@code ;}, then {@code text} byte for byte (SPEC C8): the
     * check the driver makes on every text it sends with a guard ahead. Allocation-free, so it can stay on the hot
     * path. The guard itself is one complete statement (its constructor checks that it opens no string or comment
     * the {@code ;} could fall into), so the caller's statements and parameter markers keep their text and order.
     */
    public static boolean isGuardThenText(String sent, String guard, String text) {
        int g = guard.length();
        return sent.length() == g + 1 + text.length() && sent.startsWith(guard) && sent.charAt(g) == ';'
                && sent.startsWith(text, g + 1);
    }

    @Override
    public String toString() {
        return sql;
    }
}
