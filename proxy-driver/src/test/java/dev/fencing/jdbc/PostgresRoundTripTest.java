package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Equal-token writes cost the raw driver's round trips (issue 2: "Equal token: one round trip"). Measured by
 * counting the Sync messages pgjdbc sends, from its own protocol trace: one Sync is one round trip.
 */
@RequiresPostgres
class PostgresRoundTripTest {
    private static final Logger PROTOCOL = Logger.getLogger("org.postgresql.core.v3.QueryExecutorImpl");
    private final AtomicInteger syncs = new AtomicInteger();
    private final List<String> parsed = new CopyOnWriteArrayList<>();
    private final Handler counter = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getMessage() != null && record.getMessage().contains("FE=> Sync")) {
                syncs.incrementAndGet();
            }
            String message = record.getMessage();
            if (message != null && message.contains("FE=> Parse(") && message.contains(",query=\"")) {
                parsed.add(message.substring(message.indexOf(",query=\"") + 8, message.lastIndexOf("\",oids=")));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level previous;
    private String raw;
    private String table;
    private String resource;

    @BeforeEach
    void setUp() throws SQLException {
        raw = TestDatabase.POSTGRESQL.rawUrl();
        table = TestDatabase.unique("rt");
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO " + table + " SELECT g, 0 FROM generate_series(1, 10) g");
        previous = PROTOCOL.getLevel();
        PROTOCOL.setLevel(Level.FINEST);
        PROTOCOL.addHandler(counter);
    }

    @AfterEach
    void tearDown() throws SQLException {
        PROTOCOL.removeHandler(counter);
        PROTOCOL.setLevel(previous);
        TestDatabase.exec(raw, "DROP TABLE " + table);
    }

    private int roundTrips(SqlAction action) throws SQLException {
        int before = syncs.get();
        action.run();
        return syncs.get() - before;
    }

    private interface SqlAction {
        void run() throws SQLException;
    }

    @Test
    void equalTokenWritesTakeAsManyRoundTripsAsTheRawDriver_C3() throws Exception {
        try (Connection rawConnection = DriverManager.getConnection(raw);
             Connection fenced = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                     "fencing.resource=" + resource, "fencing.token=3"))) {
            String update = "UPDATE " + table + " SET v = v + 1 WHERE id = ?";
            String insert = "INSERT INTO " + table + " (id, v) VALUES (?, ?)";
            try (Statement s = fenced.createStatement()) {
                s.executeUpdate("UPDATE " + table + " SET v = 0 WHERE id = 1");
            }
            try (PreparedStatement rawUpdate = rawConnection.prepareStatement(update);
                 PreparedStatement fencedUpdate = fenced.prepareStatement(update);
                 PreparedStatement rawInsert = rawConnection.prepareStatement(insert);
                 PreparedStatement fencedInsert = fenced.prepareStatement(insert);
                 Statement plain = fenced.createStatement()) {
                rawUpdate.setInt(1, 2);
                fencedUpdate.setInt(1, 2);
                assertEquals(1, roundTrips(rawUpdate::executeUpdate), "raw autocommit UPDATE");
                assertEquals(1, roundTrips(fencedUpdate::executeUpdate), "fenced autocommit UPDATE: guard ahead");
                rawInsert.setInt(1, 100);
                rawInsert.setInt(2, 1);
                fencedInsert.setInt(1, 101);
                fencedInsert.setInt(2, 1);
                assertEquals(1, roundTrips(rawInsert::executeUpdate), "raw autocommit INSERT");
                assertEquals(1, roundTrips(fencedInsert::executeUpdate), "fenced autocommit INSERT: guard ahead");
                assertEquals(1, roundTrips(() -> plain.executeUpdate("INSERT INTO " + table + " VALUES (102, 1)")),
                        "fenced plain INSERT");
                assertEquals(1, roundTrips(() -> plain.executeUpdate("DELETE FROM " + table + " WHERE id = 102")),
                        "fenced plain DELETE");

                fenced.setAutoCommit(false);
                rawConnection.setAutoCommit(false);
                fencedUpdate.setInt(1, 3);
                rawUpdate.setInt(1, 4);
                assertEquals(1, roundTrips(rawUpdate::executeUpdate), "raw first statement of a transaction");
                assertEquals(2, roundTrips(fencedUpdate::executeUpdate), "fenced first UPDATE of a transaction: its"
                        + " admission (SET TRANSACTION READ WRITE and the locking read, SPEC C10), then guard and text");
                fencedInsert.setInt(1, 103);
                assertEquals(1, roundTrips(fencedInsert::executeUpdate), "later statements: guard and text in one round trip");
                assertEquals(1, roundTrips(fenced::commit));
                assertEquals(1, roundTrips(rawConnection::commit));
            }
        }
    }

    @Test
    void everyMutationOfATransactionIsSentWithItsOwnGuardAheadOfTheUntouchedText_C9() throws Exception {
        try (Connection other = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resource=" + resource, "fencing.token=3")); Statement s = other.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET v = 0 WHERE id = 1");
        }
        try (Connection fenced = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resource=" + resource, "fencing.token=3"))) {
            fenced.setAutoCommit(false);
            String update = "UPDATE " + table + " SET v = v + 1 WHERE id = ?";
            try (PreparedStatement first = fenced.prepareStatement(update)) {
                first.setInt(1, 1);
                assertEquals(1, roundTrips(first::executeUpdate), "the transaction was admitted (SPEC C10) when the"
                        + " statement was prepared, its first use of the connection: guard and text only");
            }
            fenced.commit();
            String insert = "INSERT INTO " + table + " (id, v) VALUES (?, ?)";
            try (PreparedStatement later = fenced.prepareStatement(insert)) {
                for (int id = 104; id <= 106; id++) {
                    later.setInt(1, id);
                    later.setInt(2, 1);
                    parsed.clear();
                    assertEquals(1, roundTrips(() -> assertEquals(1, later.executeUpdate())), "one round trip per"
                            + " statement (the transaction was admitted, SPEC C10, when the statement was prepared)");
                    int last = parsed.size() - 1;
                    assertEquals("SET TRANSACTION READ WRITE", parsed.get(last - 2), parsed::toString);
                    assertTrue(parsed.get(last - 1).startsWith("SELECT \"public\".\"fencing_guard_fencing_epoch\"("),
                            "every statement of the transaction is sent after its guard: " + parsed);
                    assertEquals("INSERT INTO " + table + " (id, v) VALUES ($1, $2)", parsed.get(last),
                            "the caller's text as the raw driver sends it");
                }
            }
            fenced.commit();
        }
    }
}
