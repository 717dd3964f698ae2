package dev.fencing.bench.jmh;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.testsupport.StubDriver;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The fencing driver's own work per execute, with the database stubbed out ({@link StubDriver}): the same calls on
 * a raw stub connection and on {@code jdbc:fencing:} over it. The difference is what the fence costs in CPU and,
 * with {@code -prof gc}, in allocation. {@code prepared} reuses one prepared statement; otherwise each operation
 * prepares and closes its statement, as code behind a pool does.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DriverOverheadBenchmark {
    static final String UPDATE = "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?";
    static final String SELECT = "SELECT abalance FROM pgbench_accounts WHERE aid = ?";
    static final String INSERT = "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime)"
            + " VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)";

    /** {@code raw}: the stub itself; {@code fenced}: the fencing driver over the stub. */
    @Param({"raw", "fenced"})
    public String driver;

    private Connection connection;
    private PreparedStatement update;
    private PreparedStatement select;
    private PreparedStatement insert;
    private int aid;

    @Setup(Level.Trial)
    public void open() throws SQLException {
        StubDriver.register();
        String url = driver.equals("raw") ? StubDriver.URL
                : "jdbc:fencing:" + StubDriver.URL.substring("jdbc:".length())
                        + "?fencing.resource=bench&fencing.token=1";
        connection = DriverManager.getConnection(url);
        update = connection.prepareStatement(UPDATE);
        select = connection.prepareStatement(SELECT);
        insert = connection.prepareStatement(INSERT);
    }

    @TearDown(Level.Trial)
    public void close() throws SQLException {
        connection.close();
    }

    private int nextAid() {
        aid = aid == 100_000 ? 1 : aid + 1;
        return aid;
    }

    @Benchmark
    public int preparedUpdate() throws SQLException {
        return runUpdate(update);
    }

    /** The token from a thread scope opened around each statement (the scope's own cost is in both sides). */
    @Benchmark
    public int preparedUpdateInScope() throws SQLException {
        try (Fencing.Scope scope = Fencing.scope("bench", 1)) {
            return runUpdate(update);
        }
    }

    private int runUpdate(PreparedStatement statement) throws SQLException {
        statement.setInt(1, 7);
        statement.setInt(2, nextAid());
        return statement.executeUpdate();
    }

    @Benchmark
    public int preparedSelect() throws SQLException {
        select.setInt(1, nextAid());
        try (ResultSet rs = select.executeQuery()) {
            return rs.next() ? rs.getInt(1) : -1;
        }
    }

    @Benchmark
    public int preparedInsert() throws SQLException {
        insert.setInt(1, 1);
        insert.setInt(2, 1);
        insert.setInt(3, nextAid());
        insert.setInt(4, 7);
        return insert.executeUpdate();
    }

    @Benchmark
    public int prepareUpdateClose() throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(UPDATE)) {
            return runUpdate(statement);
        }
    }

    @Benchmark
    public int prepareSelectClose() throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(SELECT)) {
            statement.setInt(1, nextAid());
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() ? rs.getInt(1) : -1;
            }
        }
    }
}
