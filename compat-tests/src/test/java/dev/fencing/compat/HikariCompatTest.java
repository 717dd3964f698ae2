package dev.fencing.compat;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.jdbc.FencedConnection;
import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingRefusedException;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import static dev.fencing.compat.CompatDb.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** HikariCP over the fencing driver: plain JDBC code on pooled connections, tokens from thread scopes. */
class HikariCompatTest {
    private static final String SCHEMA = "CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(40), qty INT NOT NULL)";
    private static final String SEED = "INSERT INTO item VALUES (1, 'apple', 10), (2, 'pear', 20)";

    /** Plain JDBC as applications write it: a batch, updates, a committed and a rolled-back transaction, a query. */
    static List<Object> workload(DataSource dataSource) throws SQLException {
        List<Object> results = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO item (id, name, qty) VALUES (?, ?, ?)")) {
                for (int id = 3; id <= 5; id++) {
                    insert.setInt(1, id);
                    insert.setString(2, "item" + id);
                    insert.setInt(3, id * 10);
                    insert.addBatch();
                }
                results.add(Arrays.toString(insert.executeBatch()));
            }
            try (Statement s = c.createStatement()) {
                results.add(s.executeUpdate("UPDATE item SET qty = qty + 1 WHERE id <= 2"));
                results.add(s.executeUpdate("UPDATE item SET qty = 0 WHERE id = 999"));
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                results.add(s.executeUpdate("UPDATE item SET name = 'ripe pear' WHERE id = 2"));
                results.add(s.executeUpdate("DELETE FROM item WHERE id = 3"));
                c.commit();
                results.add(s.executeUpdate("UPDATE item SET qty = 999"));
                c.rollback();
            }
            c.setAutoCommit(true);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT sum(qty), count(*) FROM item")) {
                rs.next();
                results.add(rs.getLong(1) + "/" + rs.getLong(2));
            }
        }
        return results;
    }

    private static int update(DataSource dataSource, String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aValidTokenGivesTheRawDriversResults_C8(TestDatabase database) throws Exception {
        CompatDb.assertSameAsRawDriver(database, "items", 7, new String[] {SCHEMA, SEED}, HikariCompatTest::workload,
                "item");
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void withoutATokenEveryWriteIsRefusedAndThePoolKeepsItsConnection_C1(TestDatabase database) throws Exception {
        try (CompatDb db = CompatDb.open(database); HikariDataSource fenced = CompatDb.pool(db.fenced(), 1)) {
            db.exec(SCHEMA, SEED);
            List<String> before = db.dump("item");
            assertRefused(FencingSqlState.INVALID_TOKEN, assertThrows(SQLException.class, () -> workload(fenced)));
            assertRefused(FencingSqlState.INVALID_TOKEN, assertThrows(SQLException.class,
                    () -> update(fenced, "DELETE FROM item")));
            assertEquals(before, db.dump("item"));
            assertEquals(1, fenced.getHikariPoolMXBean().getTotalConnections(),
                    "a refusal is not a broken connection: HikariCP keeps it");
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aStaleOwnerIsFencedAndTheNewOwnersWritesStand_C2(TestDatabase database) throws Exception {
        try (CompatDb db = CompatDb.open(database);
             HikariDataSource fenced = CompatDb.pool(db.fenced("fencing.resource=items"), 2)) {
            db.exec(SCHEMA, SEED);
            try (Fencing.Scope oldOwner = Fencing.scope("items", 1)) {
                assertEquals(1, update(fenced, "UPDATE item SET qty = 11 WHERE id = 1"));
            }
            try (Fencing.Scope newOwner = Fencing.scope("items", 2)) {
                assertEquals(1, update(fenced, "UPDATE item SET qty = 12 WHERE id = 1"));
            }
            List<String> afterNewOwner = db.dump("item");
            try (Fencing.Scope oldOwner = Fencing.scope("items", 1)) {
                assertRefused(FencingSqlState.STALE_TOKEN, assertThrows(SQLException.class, () -> workload(fenced)));
            }
            assertEquals(afterNewOwner, db.dump("item"));
            assertEquals(2, db.mark("items"));
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aThreadScopedTokenNeverReachesTheNextBorrowerEvenAfterAFailedTransaction_C6(TestDatabase database)
            throws Exception {
        try (CompatDb db = CompatDb.open(database);
             HikariDataSource fenced = CompatDb.pool(db.fenced("fencing.resource=items"), 1)) {
            db.exec(SCHEMA, SEED);
            List<String> before = db.dump("item");
            Connection[] physical = new Connection[2];
            CompletableFuture.runAsync(() -> {
                try (Fencing.Scope scope = Fencing.scope("items", 5); Connection c = fenced.getConnection()) {
                    physical[0] = c.unwrap(FencedConnection.class);
                    c.setAutoCommit(false);
                    try (Statement s = c.createStatement()) {
                        s.executeUpdate("UPDATE item SET qty = 0 WHERE id = 1");
                        throw new IllegalStateException("the application fails mid-transaction");
                    }
                } catch (SQLException e) {
                    throw new AssertionError(e);
                } catch (IllegalStateException expected) {
                    // the borrower gives the connection back without committing
                }
            }).get(30, TimeUnit.SECONDS);
            assertEquals(before, db.dump("item"), "HikariCP rolled the abandoned transaction back");

            CompletableFuture.runAsync(() -> {
                try (Connection c = fenced.getConnection(); Statement s = c.createStatement()) {
                    physical[1] = c.unwrap(FencedConnection.class);
                    FencingRefusedException e = assertThrows(FencingRefusedException.class,
                            () -> s.executeUpdate("UPDATE item SET qty = 0 WHERE id = 2"));
                    assertEquals(FencingSqlState.INVALID_TOKEN, e.getSQLState());
                } catch (SQLException e) {
                    throw new AssertionError(e);
                }
            }).get(30, TimeUnit.SECONDS);
            assertSame(physical[0], physical[1], "the next borrower got the same physical connection");
            assertRefused(FencingSqlState.INVALID_TOKEN, assertThrows(SQLException.class,
                    () -> update(fenced, "UPDATE item SET qty = 0 WHERE id = 2"), "nor this thread after its scope"));
            assertEquals(before, db.dump("item"));
        }
    }

    /**
     * A token set on the connection itself ({@code setFencingToken}) lasts one borrow: HikariCP calls
     * {@code clearWarnings()} when the connection comes back, where the driver forgets it, so the next borrower of
     * the same physical connection, which sets none, is refused and changes nothing.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aConnectionTokenEndsWhenThePoolTakesTheConnectionBack_C6(TestDatabase database) throws Exception {
        try (CompatDb db = CompatDb.open(database);
             HikariDataSource fenced = CompatDb.pool(db.fenced("fencing.resource=items"), 1)) {
            db.exec(SCHEMA, SEED);
            try (Connection c = fenced.getConnection()) {
                c.unwrap(FencedConnection.class).setFencingToken(3);
            }
            List<String> before = db.dump("item");
            assertRefused(FencingSqlState.INVALID_TOKEN, assertThrows(SQLException.class,
                    () -> update(fenced, "UPDATE item SET qty = 3 WHERE id = 1"), "the next borrower has no token"));
            assertEquals(before, db.dump("item"));
        }
    }
}
