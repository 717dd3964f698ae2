package dev.fencing.jdbc.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An H2 in-memory database per test, the judge of the coordinator modules' tests: writers go through
 * {@code jdbc:fencing:h2:mem:...}; the test reads what was committed through H2 itself. It holds an {@code orders}
 * table and the fence's tables, with resource {@code orders} known (the operator's one-time step).
 */
public class H2Judge {
    private static final AtomicInteger NAMES = new AtomicInteger();
    /** The database's name, unique in this JVM. */
    public final String name;
    private final Connection keepAlive;

    /** A database named {@code prefix} plus a number. */
    public H2Judge(String prefix) throws SQLException {
        name = prefix + NAMES.incrementAndGet();
        keepAlive = DriverManager.getConnection(rawUrl());
        try (Statement s = keepAlive.createStatement()) {
            s.execute("CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, written_by VARCHAR(40))");
        }
        // the operator's one-time step: the fence's tables, and the lock's resource declared
        DriverManager.getConnection(fencingUrl(";fencing.resource=orders")).close();
    }

    public String rawUrl() {
        return "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
    }

    /** The fencing URL writers use; {@code extra} is appended as H2-style settings. */
    public String fencingUrl(String extra) {
        return "jdbc:fencing:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000;fencing.schema=create" + extra;
    }

    /** Inserts one row through the fence, with whatever token is in force on this thread. */
    public void write(String writtenBy) throws SQLException {
        write(writtenBy, "");
    }

    public void write(String writtenBy, String extraSettings) throws SQLException {
        try (Connection c = DriverManager.getConnection(fencingUrl(extraSettings));
             Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO orders (written_by) VALUES ('" + writtenBy + "')");
        }
    }

    /** Who wrote each committed row, in order. */
    public List<String> rows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement s = keepAlive.createStatement();
             ResultSet rs = s.executeQuery("SELECT written_by FROM orders ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    /** The resource's high-water mark as committed. */
    public long mark(String resource) throws SQLException {
        try (var p = keepAlive.prepareStatement("SELECT epoch FROM fencing_epoch WHERE resource = ?")) {
            p.setString(1, resource);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    public void close() throws SQLException {
        try (Statement s = keepAlive.createStatement()) {
            s.execute("SHUTDOWN");
        }
    }
}
