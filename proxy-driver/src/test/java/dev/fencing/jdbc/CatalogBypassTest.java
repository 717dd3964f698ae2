package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * SPEC C9 and C5, on each database by a subclass: a query that calls a function the catalog says may write is
 * guarded like a mutation, and an exempt table is only the very table the database resolves its configured name
 * to, written by a plain data change. The judge is a raw connection reading the rows before and after.
 */
abstract class CatalogBypassTest {
    static final long HIGH_WATER_MARK = 7;

    String raw;
    /** A protected table: id, balance. */
    String table;
    /** The table configured as exempt: id, balance (the same columns, so DDL could join it to {@link #table}). */
    String audit;
    /** A function that adds its second argument to every balance of the table its first argument names. */
    String writer;
    String resource;
    Connection judge;

    abstract TestDatabase database();

    /** Creates {@link #writer}. */
    abstract void createWriter() throws SQLException;

    /** The schema unqualified names resolve to, as the database stores it. */
    abstract String defaultSchema();

    /** Makes {@code schema} the first place unqualified table names resolve to, keeping the epoch table in reach. */
    abstract void useSchema(Statement s, String schema) throws SQLException;

    String stored(String name) {
        return database() == TestDatabase.H2 ? name.toUpperCase(Locale.ROOT) : name.toLowerCase(Locale.ROOT);
    }

    /** The same name quoted in the case the database does not fold to: another object. */
    String otherCase(String name) {
        return '"' + (database() == TestDatabase.H2 ? name.toLowerCase(Locale.ROOT) : name.toUpperCase(Locale.ROOT))
                + '"';
    }

    String callWriter(String name, int n) {
        return name + "('" + stored(table) + "', " + n + ")";
    }

    @BeforeEach
    void createData() throws Exception {
        raw = database().rawUrl();
        table = TestDatabase.unique("cat");
        audit = table + "_audit";
        writer = table + "_writer";
        resource = TestDatabase.unique("res");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100), (2, 200)",
                "CREATE TABLE " + audit + " (id INT, balance INT)");
        createWriter();
        judge = DriverManager.getConnection(raw);
        try (Connection c = connect(HIGH_WATER_MARK); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET balance = balance WHERE id = 1");
        }
    }

    @AfterEach
    void dropData() throws SQLException {
        judge.close();
        TestDatabase.dropNamed(raw, table);
    }

    /** A fenced connection for {@link #resource}; token 0 means none. */
    Connection connect(long token, String... more) throws SQLException {
        List<String> settings = new ArrayList<>(List.of("fencing.schema=create", "fencing.resource=" + resource,
                "fencing.exempt=" + audit));
        if (token > 0) {
            settings.add("fencing.token=" + token);
        }
        settings.addAll(List.of(more));
        return DriverManager.getConnection(TestDatabase.fenced(raw, settings.toArray(new String[0])));
    }

    /** The rows of {@code name}, read by the judge. */
    String rows(String name) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Statement s = judge.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM " + name + " ORDER BY 1, 2")) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= columns; i++) {
                    out.append(rs.getString(i)).append(i < columns ? ":" : " ");
                }
            }
        }
        return out.toString();
    }

    /** Everything a bypass could change: the protected table, the exempt table, and the epoch row. */
    String snapshot() throws SQLException {
        StringBuilder out = new StringBuilder(table).append('=').append(rows(table)).append(audit).append('=')
                .append(rows(audit));
        try (PreparedStatement ps = judge.prepareStatement("SELECT epoch FROM fencing_epoch WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                out.append(" epoch=").append(rs.next() ? rs.getLong(1) : -1);
            }
        }
        return out.toString();
    }

    /** The first column of every row of a result, as text. */
    static List<String> column(ResultSet rs) throws SQLException {
        List<String> values = new ArrayList<>();
        try (rs) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    /** Runs {@code attempt} on a connection without a token and with a stale one: each is refused, nothing changes. */
    void assertRefused(String what, Attempt attempt) throws Exception {
        for (long token : new long[] {0, HIGH_WATER_MARK - 1}) {
            assertRefused(what, attempt, token, token == 0 ? FencingSqlState.INVALID_TOKEN : FencingSqlState.STALE_TOKEN);
        }
    }

    /** Runs {@code attempt} on a connection with {@code token} (0: none): refused with {@code state}, nothing changes. */
    void assertRefused(String what, Attempt attempt, long token, String state) throws Exception {
        String before = snapshot();
        try (Connection c = connect(token)) {
            SQLException refusal = assertThrows(SQLException.class, () -> attempt.run(c),
                    () -> what + " ran with token " + token);
            assertEquals(state, refusal.getSQLState(), () -> what + ": " + refusal);
        }
        assertEquals(before, snapshot(), () -> what + " changed the database with token " + token);
    }

    /**
     * Whether calls of {@link #writer} are refused whatever the token (SPEC C10): on H2 it is a Java method that gets
     * the session's {@code Connection}, through which it could commit the guard's transaction.
     */
    boolean writerRefusedWhateverTheToken() {
        return false;
    }

    /**
     * {@link #assertRefused(String, Attempt)} for a text that calls {@link #writer}; where such calls are refused
     * whatever the token, refused with {@code ZF004} with no token, a stale one and the current one.
     */
    void assertWriterRefused(String what, Attempt attempt) throws Exception {
        if (!writerRefusedWhateverTheToken()) {
            assertRefused(what, attempt);
            return;
        }
        for (long token : new long[] {0, HIGH_WATER_MARK - 1, HIGH_WATER_MARK}) {
            assertRefused(what, attempt, token, FencingSqlState.CANNOT_GUARD);
        }
    }

    interface Attempt {
        void run(Connection c) throws Exception;
    }

    /** The forms of {@code SELECT writer(...)} every database has. */
    List<String> writingQueries() {
        String quoted = '"' + stored(writer) + '"';
        return List.of("SELECT " + callWriter(writer, 1),
                "select " + callWriter(writer.toUpperCase(Locale.ROOT), 1),
                "SELECT " + callWriter(defaultSchema() + "." + writer, 1),
                "SELECT " + callWriter(quoted, 1),
                "SELECT 10 * (1 + " + callWriter(writer, 1) + ") AS v",
                "WITH x AS (SELECT " + callWriter(writer, 1) + " AS v) SELECT v FROM x",
                "SELECT id FROM " + table + " WHERE balance > " + callWriter(writer, 1),
                "SELECT 1; SELECT " + callWriter(writer, 1));
    }

    @Test
    void aQueryCallingAWritingFunctionIsRefusedWithoutACurrentToken_C9() throws Exception {
        for (String sql : writingQueries()) {
            assertWriterRefused(sql, c -> c.createStatement().execute(sql));
            assertWriterRefused("prepared " + sql, c -> c.prepareStatement(sql).execute());
        }
        assertWriterRefused("prepared with parameters", c -> {
            PreparedStatement ps = c.prepareStatement("SELECT " + writer + "(?, ?)");
            ps.setString(1, stored(table));
            ps.setInt(2, 1);
            ps.executeQuery();
        });
        assertWriterRefused("in a transaction", c -> {
            c.setAutoCommit(false);
            c.createStatement().executeQuery("SELECT " + callWriter(writer, 1));
        });
        assertWriterRefused("in a batch", c -> {
            Statement s = c.createStatement();
            s.addBatch("SELECT " + callWriter(writer, 1));
            s.executeBatch();
        });
    }

    @Test
    void withACurrentTokenTheWritingQueryRunsOnceWithTheRawDriversResult_C9() throws Exception {
        Assumptions.assumeFalse(writerRefusedWhateverTheToken(), "the writer is refused whatever the token");
        for (String sql : List.of("SELECT " + callWriter(writer, 3), "SELECT 10 * (1 + " + callWriter(writer, 3)
                + ") AS v")) {
            String before = rows(table);
            List<String> fenced;
            try (Connection c = connect(HIGH_WATER_MARK)) {
                fenced = column(c.createStatement().executeQuery(sql));
            }
            String afterFenced = rows(table);
            assertEquals(shifted(before, 3), shifted(afterFenced, 0), () -> sql + " ran once through the fence");
            List<String> direct;
            try (Connection c = DriverManager.getConnection(raw)) {
                direct = column(c.createStatement().executeQuery(sql));
            }
            assertEquals(direct, fenced, sql);
            assertEquals(shifted(afterFenced, 3), shifted(rows(table), 0), () -> sql + " ran once on the raw driver");
        }
    }

    /** The balances of {@code rows} (as {@link #rows} prints them) plus {@code n}. */
    static List<String> shifted(String rows, int n) {
        List<String> balances = new ArrayList<>();
        for (String row : rows.trim().split(" ")) {
            balances.add(Integer.toString(Integer.parseInt(row.split(":")[1]) + n));
        }
        return balances;
    }

    @Test
    void queriesCallingNoWritingFunctionPassWithoutAToken_C9() throws Exception {
        String sql = "SELECT lower('X'), count(*), max(balance) FROM " + table;
        try (Connection c = connect(0); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            assertEquals("x", rs.getString(1));
            assertEquals(2, rs.getInt(2));
            assertEquals(200, rs.getInt(3));
        }
        try (Connection c = connect(0)) {
            PreparedStatement ps = c.prepareStatement("SELECT t.balance, abs(t.id), now() FROM " + table
                    + " t WHERE t.id = ?");
            ps.setInt(1, 2);
            assertEquals(List.of("200"), column(ps.executeQuery()));
        }
    }

    @Test
    void anExemptTableAcceptsPlainDataChangesWithoutAToken_C5() throws Exception {
        String qualified = defaultSchema() + "." + audit;
        String quoted = '"' + stored(audit) + '"';
        try (Connection c = connect(0); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("INSERT INTO " + audit + " VALUES (1, 10)"));
            assertEquals(1, s.executeUpdate("INSERT INTO " + qualified + " (id, balance) VALUES (2, 20)"));
            assertEquals(1, s.executeUpdate("UPDATE " + quoted + " SET balance = balance + 1 WHERE id = 1"));
            assertEquals(1, s.executeUpdate("INSERT INTO " + audit + " VALUES (11, 100)"));
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + audit.toUpperCase(Locale.ROOT)
                    + " WHERE id = ?")) {
                ps.setInt(1, 2);
                assertEquals(1, ps.executeUpdate());
            }
        }
        assertEquals("1:11 11:100 ", rows(audit));
    }

    /**
     * A write to the exempt table that reads another relation is guarded like any write: the relation may be a view
     * whose function writes the protected table (found by review: without a token, {@code INSERT INTO exempt SELECT
     * x FROM writing_view} wrote the protected table, the exempt write having lifted the server's read-only mode).
     */
    @Test
    void anExemptWriteThatReadsAnotherRelationNeedsACurrentToken_C10() throws Exception {
        TestDatabase.exec(raw, "CREATE VIEW " + table + "_wv AS SELECT " + callWriter(writer, 1) + " AS x");
        String copy = "INSERT INTO " + audit + " SELECT id + 10, balance FROM " + table + " WHERE id = 1";
        for (String sql : List.of(copy, "INSERT INTO " + audit + " SELECT x, x FROM " + table + "_wv",
                "DELETE FROM " + audit + " WHERE id IN (SELECT x FROM " + table + "_wv)",
                "UPDATE " + audit + " SET balance = (SELECT x FROM " + table + "_wv)")) {
            assertRefused(sql, c -> c.createStatement().executeUpdate(sql));
        }
        try (Connection c = connect(HIGH_WATER_MARK); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate(copy));
        }
        assertEquals("11:100 ", rows(audit));
    }

    @Test
    void anExemptTableNamedWithAnotherCaseOrInAnotherSchemaIsProtected_C5() throws Exception {
        String otherCase = otherCase(audit);
        TestDatabase.exec(raw, "CREATE TABLE " + otherCase + " (id INT, balance INT)",
                "CREATE SCHEMA " + table + "_s", "CREATE TABLE " + table + "_s." + audit + " (id INT, balance INT)");
        assertRefused("quoted name of another case", c -> c.createStatement().executeUpdate(
                "INSERT INTO " + otherCase + " VALUES (1, 1)"));
        assertRefused("same name in another schema", c -> c.createStatement().executeUpdate(
                "INSERT INTO " + table + "_s." + audit + " VALUES (1, 1)"));
        assertRefused("same name, other schema first", c -> {
            Statement s = c.createStatement();
            useSchema(s, table + "_s");
            s.executeUpdate("INSERT INTO " + audit + " VALUES (1, 1)");
        });
        assertEquals("", rows(otherCase) + rows(table + "_s." + audit));
    }

    @Test
    void aViewIsNeverExempt_C5() throws Exception {
        TestDatabase.exec(raw, "CREATE VIEW " + table + "_v AS SELECT * FROM " + table,
                "CREATE SCHEMA " + table + "_s", "CREATE VIEW " + table + "_s." + audit + " AS SELECT * FROM " + table);
        assertEquals(FencingSqlState.CONFIGURATION, assertThrows(SQLException.class,
                () -> connect(0, "fencing.exempt=" + table + "_v")).getSQLState());
        assertRefused("a view of the exempt table's name", c -> {
            Statement s = c.createStatement();
            useSchema(s, table + "_s");
            s.executeUpdate("UPDATE " + audit + " SET balance = 0");
        });
    }

    @Test
    void ddlOnAnExemptTableIsGuarded_C5() throws Exception {
        for (String ddl : List.of("ALTER TABLE " + audit + " ADD COLUMN extra INT", "DROP TABLE " + audit,
                "TRUNCATE TABLE " + audit, "CREATE INDEX " + audit + "_i ON " + audit + " (id)")) {
            assertRefused(ddl, c -> c.createStatement().execute(ddl));
        }
        try (Connection c = connect(0); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("INSERT INTO " + audit + " VALUES (1, 1)"), "the table is still there");
        }
    }

    @Test
    void anExemptWriteThatCallsAWritingFunctionOrSharesItsTextIsGuarded_C9() throws Exception {
        assertWriterRefused("a writing function in an exempt insert", c -> c.createStatement().executeUpdate(
                "INSERT INTO " + audit + " VALUES (1, " + callWriter(writer, 1) + ")"));
        assertRefused("two exempt writes in one text", c -> c.createStatement().execute(
                "INSERT INTO " + audit + " VALUES (1, 1); INSERT INTO " + audit + " VALUES (2, 2)"));
    }
}
