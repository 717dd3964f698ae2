package dev.fencing.bench.jmh;

import dev.fencing.sql.Analysis;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.SqlAnalyzer;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.AbstractJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.statement.Statement;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The analyzer on realistic statements (PostgreSQL dialect): {@code cold} classifies without a cache (lexical pass,
 * parse, classify), {@code cached} is the per-text lookup every execute pays, and {@code jsqlparserParse} is
 * JSqlParser's own parse of the same text, called synchronously as the analyzer calls it
 * ({@code jsqlparserParseUtil}: through {@code CCJSqlParserUtil.parse}, which starts a thread per call).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 10, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RewriterBenchmark {
    static final Map<String, String> STATEMENTS = Map.of(
            "update_pk", "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?",
            "delete_filter", "DELETE FROM orders WHERE customer_id = ? AND status IN ('cancelled', 'expired')"
                    + " AND created_at < ?",
            "insert_values", "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime)"
                    + " VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)",
            "insert_select", "INSERT INTO archive (id, customer_id, payload) SELECT id, customer_id, payload"
                    + " FROM events WHERE created_at < ? AND archived = false",
            "upsert", "INSERT INTO counters (k, v) VALUES (?, 1) ON CONFLICT (k) DO UPDATE SET v = counters.v + 1",
            "select_pk", "SELECT abalance FROM pgbench_accounts WHERE aid = ?",
            "select_join", "SELECT o.id, c.name, SUM(l.amount) AS total FROM orders o JOIN customers c"
                    + " ON c.id = o.customer_id JOIN order_lines l ON l.order_id = o.id WHERE o.created_at > ?"
                    + " GROUP BY o.id, c.name ORDER BY total DESC LIMIT 50");

    @Param({"update_pk", "delete_filter", "insert_values", "insert_select", "upsert", "select_pk", "select_join"})
    public String statement;

    private String sql;
    private SqlAnalyzer uncached;
    private SqlAnalyzer cached;

    @Setup
    public void setUp() {
        sql = STATEMENTS.get(statement);
        uncached = new SqlAnalyzer(Dialect.POSTGRESQL, EpochTable.of("fencing_epoch"), 0);
        cached = new SqlAnalyzer(Dialect.POSTGRESQL, EpochTable.of("fencing_epoch"), 4096);
    }

    @Benchmark
    public Analysis cold() {
        return uncached.analyze(sql);
    }

    @Benchmark
    public Analysis cached() {
        return cached.analyze(sql);
    }

    @Benchmark
    public Statement jsqlparserParse() throws ParseException {
        return new CCJSqlParser(new StringProvider(sql)).withDialect(AbstractJSqlParser.Dialect.POSTGRESQL)
                .Statement();
    }

    @Benchmark
    public Statement jsqlparserParseUtil() throws JSQLParserException {
        return CCJSqlParserUtil.parse(sql, parser -> parser.withDialect(AbstractJSqlParser.Dialect.POSTGRESQL));
    }
}
