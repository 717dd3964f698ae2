package dev.fencing.sql;

/**
 * Classifies SQL text and builds its guarded form for one dialect and epoch table, caching the result per
 * text in a bounded cache. Thread-safe; one instance is shared by all connections to the same database.
 */
public final class SqlAnalyzer {
    private final Dialect dialect;
    private final EpochSql epochSql;

    public SqlAnalyzer(Dialect dialect, EpochTable epochTable, int cacheCapacity) {
        this.dialect = dialect;
        this.epochSql = new EpochSql(dialect, epochTable);
    }

    public Dialect dialect() {
        return dialect;
    }

    public EpochSql epochSql() {
        return epochSql;
    }

    /** What {@code sql} is and how to guard it. Never throws for bad SQL: that is {@link StatementKind#UNGUARDABLE}. */
    public Analysis analyze(String sql) {
        throw new UnsupportedOperationException("not built yet");
    }
}
