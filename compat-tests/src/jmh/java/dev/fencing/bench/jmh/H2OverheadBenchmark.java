package dev.fencing.bench.jmh;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * The driver's own work per statement on a database that answers in microseconds: H2 in-memory, in this JVM, once
 * through {@code jdbc:h2:} and once through {@code jdbc:fencing:h2:} with a current token, in the same run (issue 22,
 * item 5: reads through the driver at 0.97 of raw or better). Each operation prepares, runs and closes its
 * statement, as code behind a pool does; {@code -prof gc} gives the bytes each allocates.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class H2OverheadBenchmark {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static final int ROWS = 1000;

    /** {@code raw}: H2 itself; {@code fenced}: the fencing driver over it. */
    @Param({"raw", "fenced"})
    public String driver;

    private Connection keepAlive;
    private Connection connection;
    private int id;

    @Setup(Level.Trial)
    public void open() throws SQLException {
        String name = "jmh" + DATABASES.incrementAndGet() + "_" + ProcessHandle.current().pid();
        String raw = "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
        keepAlive = DriverManager.getConnection(raw);
        try (Statement s = keepAlive.createStatement()) {
            s.execute("CREATE TABLE accounts (id INT PRIMARY KEY, balance INT NOT NULL)");
            s.execute("INSERT INTO accounts SELECT x, 0 FROM SYSTEM_RANGE(1, " + ROWS + ")");
        }
        connection = DriverManager.getConnection(driver.equals("raw") ? raw
                : "jdbc:fencing:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;fencing.schema=create;fencing.resource=bench"
                        + ";fencing.resources=any;fencing.token=1");
    }

    @TearDown(Level.Trial)
    public void close() throws SQLException {
        connection.close();
        try (Statement s = keepAlive.createStatement()) {
            s.execute("SHUTDOWN");
        }
    }

    private int nextId() {
        id = id == ROWS ? 1 : id + 1;
        return id;
    }

    /** A primary-key read: prepare, bind, execute, read, close. */
    @Benchmark
    public int read() throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT balance FROM accounts WHERE id = ?")) {
            ps.setInt(1, nextId());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : -1;
            }
        }
    }

    /** An auto-commit single-row update: prepare, bind, execute, close (the fenced side guards it). */
    @Benchmark
    public int update() throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "UPDATE accounts SET balance = balance + 1 WHERE id = ?")) {
            ps.setInt(1, nextId());
            return ps.executeUpdate();
        }
    }
}
