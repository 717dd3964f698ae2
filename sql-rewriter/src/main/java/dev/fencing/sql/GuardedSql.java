package dev.fencing.sql;

/**
 * A mutation with the epoch guard joined into its own text. The guard's two markers ({@code resource}, then
 * {@code token}) are JDBC {@code ?} parameters at known positions; the caller's own {@code ?} markers keep
 * their order, shifted where the guard's markers come before them.
 */
public final class GuardedSql {
    private final String sql;
    private final int[] userToActual;
    private final int resourceIndex;
    private final int tokenIndex;
    private final int resourceOffset;
    private final int tokenOffset;

    /**
     * @param sql            the guarded text
     * @param userToActual   element {@code i-1} is the position in {@code sql} of the caller's parameter {@code i}
     * @param resourceIndex  1-based position of the resource marker among all markers of {@code sql}
     * @param tokenIndex     1-based position of the token marker
     * @param resourceOffset character offset of the resource marker's {@code ?} in {@code sql}
     * @param tokenOffset    character offset of the token marker's {@code ?} in {@code sql}
     */
    public GuardedSql(String sql, int[] userToActual, int resourceIndex, int tokenIndex, int resourceOffset,
                      int tokenOffset) {
        if (resourceOffset >= tokenOffset || sql.charAt(resourceOffset) != '?' || sql.charAt(tokenOffset) != '?') {
            throw new IllegalArgumentException("guard markers misplaced in " + sql);
        }
        this.sql = sql;
        this.userToActual = userToActual.clone();
        this.resourceIndex = resourceIndex;
        this.tokenIndex = tokenIndex;
        this.resourceOffset = resourceOffset;
        this.tokenOffset = tokenOffset;
    }

    /** The guarded text, with {@code ?} at the guard's markers. */
    public String sql() {
        return sql;
    }

    /** How many {@code ?} markers the caller's original text has. */
    public int userParameterCount() {
        return userToActual.length;
    }

    /** The position in {@link #sql()} of the caller's 1-based parameter {@code userIndex}. */
    public int actualIndex(int userIndex) {
        return userToActual[userIndex - 1];
    }

    public int resourceIndex() {
        return resourceIndex;
    }

    public int tokenIndex() {
        return tokenIndex;
    }

    /**
     * The guarded text with the resource and token written as literals, for plain {@code Statement}s that have
     * no parameters. The resource must be a valid {@link ResourceName}; the token is a number.
     *
     * @throws IllegalArgumentException when {@code resource} is not a valid resource name
     */
    public String withLiterals(String resource, long token) {
        StringBuilder out = new StringBuilder(sql.length() + resource.length() + 24);
        out.append(sql, 0, resourceOffset);
        appendStringLiteral(out, resource);
        out.append(sql, resourceOffset + 1, tokenOffset);
        out.append(token);
        out.append(sql, tokenOffset + 1, sql.length());
        return out.toString();
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
