package dev.fencing.sql;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.statement.Statement;

/**
 * Classifies SQL text and builds its guarded form for one dialect and epoch table, caching the result per
 * text in a bounded cache. Thread-safe; one instance is shared by all connections to the same database.
 */
public final class SqlAnalyzer {
    private static final Analysis NULL_TEXT = Analyses.unguardable("the SQL text is null", 0);
    private static final Analysis EMPTY_TEXT = Analyses.readOnly(0, false);

    private final Dialect dialect;
    private final EpochSql epochSql;
    private final GuardRewriter rewriter;
    private final int cacheCapacity;
    private final Map<String, Analysis> cache;

    /**
     * @param cacheCapacity how many texts to remember; when full the cache starts over. 0 caches nothing.
     * @throws IllegalArgumentException when {@code cacheCapacity} is negative
     */
    public SqlAnalyzer(Dialect dialect, EpochTable epochTable, int cacheCapacity) {
        if (cacheCapacity < 0) {
            throw new IllegalArgumentException("cache capacity " + cacheCapacity + " is negative");
        }
        this.dialect = dialect;
        this.epochSql = new EpochSql(dialect, epochTable);
        this.rewriter = new GuardRewriter(GuardExpression.of(epochSql), dialect);
        this.cacheCapacity = cacheCapacity;
        this.cache = new ConcurrentHashMap<>(Math.min(cacheCapacity, 1024));
    }

    public Dialect dialect() {
        return dialect;
    }

    public EpochSql epochSql() {
        return epochSql;
    }

    /** What {@code sql} is and how to guard it. Never throws for bad SQL: that is {@link StatementKind#UNGUARDABLE}. */
    public Analysis analyze(String sql) {
        if (sql == null) {
            return NULL_TEXT;
        }
        Analysis cached = cache.get(sql);
        if (cached != null) {
            return cached;
        }
        Analysis analysis = analyzeText(sql);
        if (cacheCapacity == 0) {
            return analysis;
        }
        if (cache.size() >= cacheCapacity) {
            cache.clear();
        }
        Analysis raced = cache.putIfAbsent(sql, analysis);
        return raced == null ? analysis : raced;
    }

    private Analysis analyzeText(String sql) {
        List<SqlLexer.Part> parts = SqlLexer.split(sql, dialect);
        if (parts.isEmpty()) {
            return EMPTY_TEXT;
        }
        if (parts.size() == 1) {
            return analyzePart(parts.get(0), true);
        }
        List<Analysis> analyses = new ArrayList<>(parts.size());
        for (SqlLexer.Part part : parts) {
            analyses.add(analyzePart(part, false));
        }
        return combine(analyses);
    }

    /** One statement; {@code joinable} when it is the whole text, so a joined form may be built. */
    private Analysis analyzePart(SqlLexer.Part part, boolean joinable) {
        String explained = KeywordClassifier.statementRunByExplain(part);
        if (explained != null) {
            return explained(explained);
        }
        Analysis recognised = KeywordClassifier.classify(part);
        if (recognised != null) {
            return recognised;
        }
        if (part.maxDepth() > SqlParsing.MAX_NESTING_DEPTH) {
            return Analyses.unguardable("parentheses nest deeper than " + SqlParsing.MAX_NESTING_DEPTH + ": "
                    + Analyses.excerpt(part.text()), 1);
        }
        Statement statement;
        try {
            statement = SqlParsing.statement(part.text(), dialect, part.maxDepth());
        } catch (ParseException | RuntimeException | StackOverflowError e) {
            return Analyses.unguardable("JSqlParser cannot parse: " + Analyses.excerpt(part.text()), 1);
        }
        Analysis analysis = StatementClassifier.classify(statement);
        if (!joinable || analysis.kind() != StatementKind.MUTATION || analysis.returnsRows()) {
            return analysis;
        }
        GuardedSql joined = rewriter.join(statement, part.markers(), part.maxDepth());
        return joined == null ? analysis : Analyses.mutation(analysis.targetTables(), false, 1, joined);
    }

    /** {@code EXPLAIN ANALYZE} runs its statement: it is what that statement is, and it yields rows. */
    private Analysis explained(String statement) {
        List<SqlLexer.Part> parts = SqlLexer.split(statement, dialect);
        if (parts.size() != 1) {
            return Analyses.unguardable("cannot tell what EXPLAIN ANALYZE runs: " + Analyses.excerpt(statement), 1);
        }
        Analysis inner = analyzePart(parts.get(0), false);
        switch (inner.kind()) {
            case MUTATION:
                return Analyses.mutation(inner.targetTables(), true, 1, null);
            case READ_ONLY:
                return Analyses.readOnly(1, true);
            case UNGUARDABLE:
                return inner;
            default:
                return Analyses.unguardable("EXPLAIN ANALYZE of a statement that is not a query or a mutation", 1);
        }
    }

    /** Several statements in one text: guarded as a whole or refused as a whole, never joined. */
    private static Analysis combine(List<Analysis> analyses) {
        int count = analyses.size();
        int transactionControls = 0;
        Analysis control = null;
        boolean mutation = false;
        boolean allSettings = true;
        boolean returnsRows = false;
        Set<String> targets = new LinkedHashSet<>();
        for (Analysis analysis : analyses) {
            switch (analysis.kind()) {
                case UNGUARDABLE:
                    return Analyses.unguardable(analysis.reason(), count);
                case FENCING_SETTING:
                    return Analyses.unguardable("SET " + analysis.settingName()
                            + " must be a text of its own, not one of several statements", count);
                case TRANSACTION_CONTROL:
                    transactionControls++;
                    control = analysis;
                    break;
                case MUTATION:
                    mutation = true;
                    targets.addAll(analysis.targetTables());
                    break;
                default:
                    break;
            }
            allSettings &= analysis.kind() == StatementKind.SESSION_SETTING;
            returnsRows |= analysis.returnsRows();
        }
        if (transactionControls > 0 && mutation) {
            return Analyses.unguardable("transaction control mixed with writes in one text", count);
        }
        if (transactionControls > 1) {
            return Analyses.unguardable("several transaction-control statements in one text", count);
        }
        if (control != null) {
            return Analyses.transactionControl(control.transactionControl(), count);
        }
        if (mutation) {
            return Analyses.mutation(new ArrayList<>(targets), returnsRows, count, null);
        }
        return allSettings ? Analyses.sessionSetting(count, returnsRows) : Analyses.readOnly(count, returnsRows);
    }
}
