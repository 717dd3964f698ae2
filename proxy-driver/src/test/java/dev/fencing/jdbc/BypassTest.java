package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import dev.fencing.jdbc.wrapper.Unfenced;

import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC C5: every JDBC entry point and SQL form that can change data, attempted with no token, a stale token and a
 * malformed token (and, for the fence's own table, the current token), on each database by a subclass. The judge
 * is the database: the protected table's rows and columns, the epoch row and the schema's objects are read on a
 * separate raw connection before and after each attempt; on PostgreSQL the attempt also runs inside a transaction
 * whose {@code pg_stat_xact_user_tables} counters, read on the same connection, must show no row written.
 */
abstract class BypassTest {
    /** Who tries the mutation. */
    enum Attacker { NO_TOKEN, STALE_TOKEN, MALFORMED_TOKEN, CURRENT_TOKEN }

    /** A token file holding a malformed token, for {@link Attacker#MALFORMED_TOKEN}. */
    private static final String MALFORMED_TOKEN_FILE = malformedTokenFile();

    private static String malformedTokenFile() {
        try {
            java.nio.file.Path file = java.nio.file.Files.createTempFile("fencing-malformed", ".token");
            java.nio.file.Files.writeString(file, "1x");
            file.toFile().deleteOnExit();
            return file.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** How a path must be refused. */
    enum Expect {
        /** Guarded: refused for a missing, malformed or stale token. */
        GUARDED,
        /** Refused whatever the token: the driver cannot guard it. */
        CANNOT_GUARD,
        /** Refused whatever the token: it writes the epoch table or hands out a raw object. */
        PROTECTED
    }

    /** One attempt at a mutation through one path. */
    interface Attempt {
        void run(Connection c) throws Exception;
    }

    /** A mutation path: its name, how it must be refused, and the attempt. */
    record Path(String name, Expect expect, Attempt attempt) {
    }

    static final long HIGH_WATER_MARK = 5;
    /**
     * Common paths that call {@link #procedure} or {@link #function}: where the database's procedures may commit
     * inside (MariaDB) or get the session's connection (H2), they cannot be guarded.
     */
    static final Set<String> CALL_PATHS = Set.of("prepareCall {call p(?, ?)}", "prepareCall {? = call f(?, ?)}",
            "prepareCall CALL p(?, ?)", "Statement.execute {call p('t', 1)}", "prepareStatement {call p(?, ?)}",
            "escape inside a CALL, resolved by nativeSQL", "CALL", "a call that names the epoch table");

    String raw;
    String table;
    String resource;
    String procedure;
    String function;
    /** The judge's own raw connection, never fenced. */
    Connection judge;
    /** The epoch table the fenced connections use: the default one, or (with a map) this test's own. */
    String epochTable = "fencing_epoch";
    /** With a map: the connection's own resource, for which every attacker holds a current token. */
    String own;

    /**
     * Whether this run has a resource map (SPEC C11): {@link #table} is mapped to {@link #resource}, the connections
     * name another resource ({@link #own}) and hold a current token for it, and the attacker's token (none, stale,
     * malformed, current) is for the mapped table's resource, set with {@code SET fencing.token.<resource>}. Every
     * path that writes the table must be refused just the same. Such a run uses an epoch table (and so a resource
     * table) of its own, so it never changes the map other runs read; the paths that write the default epoch table
     * are left out (they are refused whatever the token, and are the plain run's).
     */
    boolean mapped() {
        return false;
    }

    /**
     * Paths that change nothing of the mapped table, nor reach it by code: with a current token for the connection's
     * own resource they run, as they should (a {@code PREPARE}, whose {@code EXECUTE} is the write; a plain temporary
     * table of the session's own).
     */
    static final Set<String> WRITE_NOTHING_MAPPED = Set.of("PREPARE of a write",
            "a write to the session's own temporary table still needs a token that is not stale");

    abstract TestDatabase database();

    /** Creates {@link #procedure} (arguments: table name, amount) and {@link #function} (same, returns the amount). */
    abstract void createProcedures() throws SQLException;

    /** Paths only this database has. */
    abstract List<Path> databasePaths();

    /** Objects (tables, indexes) of this test, by name, for the judge. */
    abstract String objectsQuery();

    /** How many times {@link #objectsQuery()} takes the name pattern. */
    int objectsQueryParameters() {
        return 1;
    }

    /** A name as the database stores it when written unquoted. */
    String stored(String name) {
        return database() == TestDatabase.H2 ? name.toUpperCase(Locale.ROOT) : name.toLowerCase(Locale.ROOT);
    }

    String quoted(String name) {
        return '"' + stored(name) + '"';
    }

    String update() {
        return "UPDATE " + table + " SET balance = balance + 1";
    }

    /** The raw URL of this class's database (a subclass may add the underlying driver's settings). */
    String rawUrl() {
        return database().rawUrl();
    }

    /**
     * A common path as this database meets it: a subclass may change what it expects (a MariaDB procedure, which
     * may commit inside, cannot be guarded) or drop it ({@code null}) where it cannot mean anything there.
     */
    Path adjust(Path path) {
        return path;
    }

    /** The schema the epoch table lives in, as a name of the SQL the tests send. */
    String defaultSchema() {
        return "public";
    }

    @BeforeEach
    void createData() throws Exception {
        raw = rawUrl();
        table = TestDatabase.unique("byp");
        resource = TestDatabase.unique("res");
        procedure = table + "_proc";
        function = table + "_func";
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT DEFAULT 0 NOT NULL)",
                "INSERT INTO " + table + " VALUES (1, 100), (2, 200)");
        if (mapped()) {
            epochTable = TestDatabase.unique("bypmap");
            own = resource + "_own";
            TestDatabase.cli(0, raw, epochTable, epochTable + "_lease", "init");
            TestDatabase.cli(0, raw, epochTable, epochTable + "_lease", "map", table, "--resource", resource);
            TestDatabase.cli(0, raw, epochTable, epochTable + "_lease", "declare", own);
        }
        createProcedures();
        judge = DriverManager.getConnection(raw);
        try (Connection c = connect(Attacker.CURRENT_TOKEN); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table + " SET balance = balance WHERE id = 1");
        }
    }

    @AfterEach
    void dropData() throws SQLException {
        judge.close();
        try (Connection c = DriverManager.getConnection(raw); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
            s.execute("DROP TABLE IF EXISTS " + table + "_copy");
            s.execute("DROP TABLE IF EXISTS " + table + "_into");
            s.execute("DROP TABLE IF EXISTS " + table + "_audit");
            dropProcedures(s);
        }
        if (mapped()) {
            TestDatabase.dropNamed(raw, epochTable);
        }
    }

    abstract void dropProcedures(Statement s) throws SQLException;

    Connection connect(Attacker attacker, String... more) throws SQLException {
        if (mapped()) {
            List<String> settings = new ArrayList<>(List.of("fencing.table=" + epochTable, "fencing.lease.table="
                    + epochTable + "_lease", "fencing.resource=" + own, "fencing.token=" + HIGH_WATER_MARK));
            settings.addAll(List.of(more));
            Connection c = DriverManager.getConnection(TestDatabase.fenced(raw, settings.toArray(new String[0])));
            long token = attacker == Attacker.STALE_TOKEN ? HIGH_WATER_MARK - 2
                    : attacker == Attacker.CURRENT_TOKEN ? HIGH_WATER_MARK : 0;
            if (token > 0) {
                try (Statement s = c.createStatement()) {
                    s.execute("SET fencing.token." + resource + " = " + token);
                }
            }
            return c;
        }
        List<String> settings = new ArrayList<>(List.of("fencing.schema=create", "fencing.resource=" + resource));
        switch (attacker) {
            case STALE_TOKEN:
                settings.add("fencing.token=" + (HIGH_WATER_MARK - 2));
                break;
            case MALFORMED_TOKEN:
                // a malformed static setting fails the connect itself (TokenResolverTest): here the token comes
                // from a source read at every mutation, a file holding "1x"
                settings.add("fencing.token.file=" + MALFORMED_TOKEN_FILE);
                break;
            case CURRENT_TOKEN:
                settings.add("fencing.token=" + HIGH_WATER_MARK);
                break;
            default:
                break;
        }
        settings.addAll(List.of(more));
        return DriverManager.getConnection(TestDatabase.fenced(raw, settings.toArray(new String[0])));
    }

    /** What the database holds that any path could change, read on a raw connection. */
    String snapshot() throws SQLException {
        StringBuilder out = new StringBuilder();
        Connection c = judge;
        try (Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY id")) {
                ResultSetMetaData meta = rs.getMetaData();
                out.append("columns=").append(meta.getColumnCount()).append(" rows=");
                while (rs.next()) {
                    out.append(rs.getInt(1)).append(':').append(rs.getInt(2)).append(' ');
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT resource, epoch FROM " + epochTable
                    + " WHERE resource = ? OR resource = 'x'")) {
                ps.setString(1, resource);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.append(" epoch ").append(rs.getString(1)).append('=').append(rs.getLong(2));
                    }
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + epochTable)) {
                rs.next();
                out.append(" epochRows>0=").append(rs.getLong(1) > 0);
            }
            try (PreparedStatement ps = c.prepareStatement(objectsQuery())) {
                for (int i = 1; i <= objectsQueryParameters(); i++) {
                    ps.setString(i, stored(table) + "%");
                }
                try (ResultSet rs = ps.executeQuery()) {
                    out.append(" objects=");
                    while (rs.next()) {
                        out.append(rs.getString(1)).append(' ');
                    }
                }
            }
        }
        return out.toString();
    }

    /** Every path this database has: the common ones as it meets them, then its own. */
    List<Path> paths() {
        List<Path> paths = new ArrayList<>();
        for (Path common : commonPaths()) {
            paths.add(common == null ? null : adjust(common));
        }
        paths.addAll(databasePaths());
        paths.removeIf(Objects::isNull);
        if (mapped()) {
            paths.removeIf(path -> path.expect() == Expect.PROTECTED || WRITE_NOTHING_MAPPED.contains(path.name()));
        }
        return paths;
    }

    @TestFactory
    Stream<DynamicTest> everyPathIsRefusedAndTheDatabaseShowsNothingChanged_C5() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path path : paths()) {
            for (Attacker attacker : Attacker.values()) {
                if (attacker == Attacker.CURRENT_TOKEN && path.expect() != Expect.PROTECTED
                        || attacker == Attacker.MALFORMED_TOKEN && mapped()) {
                    continue; // with a map, a malformed token is refused when set: the attacker holds none
                }
                for (boolean inTransaction : new boolean[] {false, true}) {
                    if (mapped() && inTransaction != (attacker == Attacker.STALE_TOKEN)) {
                        continue; // with a map: no token in auto-commit, a stale one in a transaction (run time)
                    }
                    String name = path.name() + " / " + attacker + (inTransaction ? " / in a transaction" : "");
                    tests.add(DynamicTest.dynamicTest(name, () -> attempt(path, attacker, inTransaction)));
                }
            }
        }
        return tests.stream();
    }

    void attempt(Path path, Attacker attacker, boolean inTransaction) throws Exception {
        String before = snapshot();
        try (Connection c = connect(attacker)) {
            Savepoint savepoint = null;
            if (inTransaction) {
                c.setAutoCommit(false);
                savepoint = c.setSavepoint();
            }
            SQLException refusal = assertThrows(SQLException.class, () -> path.attempt().run(c),
                    () -> path.name() + " ran for " + attacker);
            assertEquals(expectedState(path.expect(), attacker), refusal.getSQLState(),
                    () -> path.name() + ": " + refusal);
            if (inTransaction) {
                c.rollback(savepoint);
                assertNothingWrittenInThisTransaction(c);
                c.rollback();
            }
        }
        assertEquals(before, snapshot(), () -> path.name() + ": the database changed");
    }

    /**
     * Where the database counts the rows a transaction wrote (even in a rolled-back savepoint), checks there were
     * none. H2 and MariaDB keep no such counters: there the snapshot on a separate connection judges alone.
     */
    void assertNothingWrittenInThisTransaction(Connection c) throws SQLException {
    }

    static String expectedState(Expect expect, Attacker attacker) {
        switch (expect) {
            case CANNOT_GUARD:
                return FencingSqlState.CANNOT_GUARD;
            case PROTECTED:
                return FencingSqlState.PROTECTED;
            default:
                return attacker == Attacker.STALE_TOKEN ? FencingSqlState.STALE_TOKEN : FencingSqlState.INVALID_TOKEN;
        }
    }

    /**
     * Writes that each add 1 to every balance, through the forms this database (and its driver) has beyond the
     * common ones.
     */
    abstract List<Attempt> databaseIncrements();

    /**
     * Procedure calls and escapes that each add 1 to every balance; a database whose calls the fence cannot guard
     * has none.
     */
    List<Attempt> callIncrements() {
        String literal = "('" + stored(table) + "', 1)";
        return List.of(
                c -> c.createStatement().execute("CALL " + procedure + literal),
                c -> call(c.prepareCall("{call " + function + "(?, ?)}"), 1).execute(),
                c -> {
                    CallableStatement cs = c.prepareCall("{? = call " + function + "(?, ?)}");
                    cs.registerOutParameter(1, Types.INTEGER);
                    call(cs, 2).execute();
                    assertEquals(1, cs.getInt(1));
                });
    }

    @Test
    void callsEscapesAndCarriedStatementsRunWithTheCurrentToken_C5() throws Exception {
        List<Attempt> increments = new ArrayList<>(callIncrements());
        increments.add(c -> {
            ResultSet rs = updatable(c);
            while (rs.next()) {
                rs.updateInt("balance", rs.getInt("balance") + 1);
                rs.updateRow();
            }
        });
        increments.addAll(databaseIncrements());
        try (Connection c = connect(Attacker.CURRENT_TOKEN)) {
            for (Attempt increment : increments) {
                increment.run(c);
            }
            c.setAutoCommit(false);
            for (Attempt increment : increments) {
                increment.run(c);
            }
            c.commit();
        }
        try (Statement s = judge.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM " + table + " ORDER BY id")) {
            rs.next();
            assertEquals(100 + 2 * increments.size(), rs.getInt(1), "every form ran once in autocommit, once in a"
                    + " transaction");
        }
    }

    /** The {@code fencing.exempt} entry for {@code table}: upper case, since the name is read as unquoted. */
    String exemptEntry(String table) {
        return table.toUpperCase(Locale.ROOT);
    }

    /** A second write of row 2 to the exempt table {@code audit}, in a form of this database's. */
    void exemptWrite(Connection c, String audit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + quoted(audit) + " VALUES (?, ?)")) {
            ps.setInt(1, 2);
            ps.setString(2, "prepared");
            ps.addBatch();
            assertEquals(1, ps.executeBatch().length);
        }
    }

    /** Writes that reach the exempt table {@code audit} and a protected one: each must be refused for its token. */
    List<Attempt> mixedWrites(String audit) {
        return List.of(
                c -> c.createStatement().execute("INSERT INTO " + audit + " VALUES (3, 'mixed'); " + update()),
                c -> c.createStatement().executeUpdate("INSERT INTO " + audit + " SELECT id, 'copied' FROM " + table
                        + " WHERE 1 = 0; " + update()),
                c -> c.createStatement().executeUpdate(update()));
    }

    @Test
    void exemptTablesNeedNoTokenAndMixedWritesAreGuarded_C5() throws Exception {
        String audit = table + "_audit";
        TestDatabase.exec(raw, "CREATE TABLE " + audit + " (id INT, note VARCHAR(40))");
        String before = snapshot();
        Path call = adjust(guarded("CALL", c -> c.createStatement().execute("CALL " + procedure + "('"
                + stored(audit) + "', 1)")));
        try (Connection c = connect(Attacker.NO_TOKEN, "fencing.exempt=other," + exemptEntry(audit));
             Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("INSERT INTO " + audit + " VALUES (1, 'no token needed')"));
            exemptWrite(c, audit);
            for (Attempt mixed : mixedWrites(audit)) {
                assertEquals(FencingSqlState.INVALID_TOKEN, assertThrows(SQLException.class, () -> mixed.run(c))
                        .getSQLState());
            }
            assertEquals(expectedState(call.expect(), Attacker.NO_TOKEN), assertThrows(SQLException.class,
                    () -> call.attempt().run(c)).getSQLState(), "a call's writes cannot be named, so it is never exempt");
        }
        assertEquals(before, snapshot());
        try (Statement s = judge.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + audit)) {
            rs.next();
            assertEquals(2, rs.getInt(1));
        }
    }

    @Test
    void exemptingTheEpochTableOrABadNameIsAConfigurationError_C5() {
        Assumptions.assumeFalse(mapped(), "names the default epoch table: the plain run's");
        assertEquals(FencingSqlState.CONFIGURATION, assertThrows(SQLException.class,
                () -> connect(Attacker.NO_TOKEN, "fencing.exempt=fencing_epoch")).getSQLState());
        assertEquals(FencingSqlState.CONFIGURATION, assertThrows(SQLException.class,
                () -> connect(Attacker.NO_TOKEN, "fencing.exempt=audit log")).getSQLState());
        assertEquals(FencingSqlState.CONFIGURATION, assertThrows(SQLException.class,
                () -> connect(Attacker.NO_TOKEN, "fencing.bypass=true")).getSQLState(),
                "no URL setting turns fencing off");
    }

    @Test
    void theAdministrativeBypassIsReachableFromCodeOnly_C5() throws Exception {
        Assumptions.assumeFalse(mapped(), "writes the default epoch table: the plain run's");
        String url = TestDatabase.fenced(raw, "fencing.resource=" + resource, "fencing.token=1");
        try (Connection admin = Unfenced.connect(url, new Properties()); Statement s = admin.createStatement()) {
            assertFalse(admin instanceof FencedConnection, "the tool gets the underlying driver's connection");
            assertEquals(1, s.executeUpdate("UPDATE fencing_epoch SET epoch = epoch WHERE resource = '"
                    + resource + "'"), "and may write the epoch table");
        }
        assertEquals(FencingSqlState.CONFIGURATION, assertThrows(SQLException.class,
                () -> Unfenced.connect(raw, new Properties())).getSQLState());
    }

    /** Whether the database has array values (MariaDB has none). */
    boolean hasArrays() {
        return true;
    }

    @Test
    void arraysNeverLeadBackToTheRawConnection_C5() throws Exception {
        Assumptions.assumeTrue(hasArrays(), "the database has no array values");
        try (Connection c = connect(Attacker.NO_TOKEN); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT ARRAY[1, 2]")) {
            assertTrue(rs.next());
            assertNull(rs.getArray(1).getResultSet().getStatement());
            assertNull(((Array) rs.getObject(1)).getResultSet().getStatement());
            assertNull(rs.getObject(1, Array.class).getResultSet().getStatement());
            Array made = c.createArrayOf("INTEGER", new Integer[] {1, 2, 3});
            assertNull(made.getResultSet().getStatement());
            try (PreparedStatement ps = c.prepareStatement("SELECT CARDINALITY(?)")) {
                ps.setArray(1, made);
                try (ResultSet count = ps.executeQuery()) {
                    assertTrue(count.next());
                    assertEquals(3, count.getInt(1), "the underlying driver gets its own array back");
                }
            }
        }
    }

    @Test
    void nativeSqlOnlyTranslatesText_C5() throws Exception {
        String before = snapshot();
        try (Connection c = connect(Attacker.NO_TOKEN)) {
            String call = "{call " + procedure + "('" + stored(table) + "', 1)}";
            assertTrue(c.nativeSQL(call).contains(procedure), "nativeSQL answers text and runs nothing");
        }
        assertEquals(before, snapshot());
    }

    private List<Path> commonPaths() {
        String update = update();
        String insert = "INSERT INTO " + table + " (id, balance) VALUES (?, ?)";
        List<Path> paths = new ArrayList<>();
        // Statement entry points, every overload.
        paths.add(guarded("execute", c -> c.createStatement().execute(update)));
        paths.add(guarded("execute with generated keys", c -> c.createStatement().execute(update,
                Statement.RETURN_GENERATED_KEYS)));
        paths.add(keyIndexes("execute with key columns", c -> c.createStatement().execute(update, new int[] {1})));
        paths.add(guarded("execute with key names", c -> c.createStatement().execute(update, new String[] {"id"})));
        paths.add(guarded("executeUpdate", c -> c.createStatement().executeUpdate(update)));
        paths.add(guarded("executeUpdate with generated keys", c -> c.createStatement().executeUpdate(update,
                Statement.RETURN_GENERATED_KEYS)));
        paths.add(keyIndexes("executeUpdate with key columns", c -> c.createStatement().executeUpdate(update,
                new int[] {1})));
        paths.add(guarded("executeUpdate with key names", c -> c.createStatement().executeUpdate(update,
                new String[] {"id"})));
        paths.add(guarded("executeLargeUpdate", c -> c.createStatement().executeLargeUpdate(update)));
        paths.add(guarded("executeLargeUpdate with generated keys", c -> c.createStatement().executeLargeUpdate(update,
                Statement.RETURN_GENERATED_KEYS)));
        paths.add(keyIndexes("executeLargeUpdate with key columns", c -> c.createStatement().executeLargeUpdate(update,
                new int[] {1})));
        paths.add(guarded("executeLargeUpdate with key names", c -> c.createStatement().executeLargeUpdate(update,
                new String[] {"id"})));
        paths.add(guarded("insert with generated keys", c -> c.createStatement().executeUpdate("INSERT INTO " + table
                + " (id, balance) VALUES (3, 300)", Statement.RETURN_GENERATED_KEYS)));
        // Batches.
        paths.add(guarded("addBatch + executeBatch", c -> {
            Statement s = c.createStatement();
            s.addBatch(update);
            s.executeBatch();
        }));
        paths.add(guarded("addBatch + executeLargeBatch", c -> {
            Statement s = c.createStatement();
            s.addBatch("DELETE FROM " + table + " WHERE id = 2");
            s.executeLargeBatch();
        }));
        paths.add(guarded("mixed batch", c -> {
            Statement s = c.createStatement();
            s.addBatch("INSERT INTO " + table + " (id, balance) VALUES (7, 700)");
            s.addBatch(update);
            s.addBatch("DELETE FROM " + table + " WHERE id = 7");
            s.executeBatch();
        }));
        paths.add(guarded("executeBatch again after a refusal", c -> {
            Statement s = c.createStatement();
            s.addBatch(update);
            SQLException first = assertThrows(SQLException.class, s::executeBatch);
            assertEquals(0, s.executeBatch().length, "a refused batch is discarded, not run by the next call");
            throw first;
        }));
        // Prepared statements.
        paths.add(guarded("prepared executeUpdate", c -> c.prepareStatement(update).executeUpdate()));
        paths.add(guarded("prepared execute", c -> c.prepareStatement(update).execute()));
        paths.add(guarded("prepared executeLargeUpdate", c -> c.prepareStatement(update).executeLargeUpdate()));
        paths.add(guarded("prepared insert", c -> insert(c.prepareStatement(insert)).executeUpdate()));
        paths.add(guarded("prepared insert with generated keys",
                c -> insert(c.prepareStatement(insert, Statement.RETURN_GENERATED_KEYS)).executeUpdate()));
        paths.add(keyIndexes("prepared insert with key columns",
                c -> insert(c.prepareStatement(insert, new int[] {1})).executeUpdate()));
        paths.add(guarded("prepared insert with key names",
                c -> insert(c.prepareStatement(insert, new String[] {"id"})).executeUpdate()));
        paths.add(guarded("prepared with result-set type", c -> insert(c.prepareStatement(insert,
                ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)).executeUpdate()));
        paths.add(guarded("prepared with holdability", c -> insert(c.prepareStatement(insert,
                ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY, ResultSet.HOLD_CURSORS_OVER_COMMIT))
                .executeUpdate()));
        paths.add(guarded("prepared addBatch + executeBatch", c -> {
            PreparedStatement ps = insert(c.prepareStatement(insert));
            ps.addBatch();
            ps.executeBatch();
        }));
        paths.add(guarded("prepared executeBatch again after a refusal", c -> {
            PreparedStatement ps = insert(c.prepareStatement(insert));
            ps.addBatch();
            SQLException first = assertThrows(SQLException.class, ps::executeBatch);
            assertEquals(0, ps.executeBatch().length, "a refused batch is discarded, not run by the next call");
            throw first;
        }));
        // Procedure calls and JDBC escapes.
        paths.add(guarded("prepareCall {call p(?, ?)}", c -> call(c.prepareCall("{call " + procedure + "(?, ?)}"), 1)
                .execute()));
        paths.add(guarded("prepareCall {? = call f(?, ?)}", c -> {
            CallableStatement cs = c.prepareCall("{? = call " + function + "(?, ?)}");
            cs.registerOutParameter(1, Types.INTEGER);
            call(cs, 2).execute();
        }));
        paths.add(guarded("prepareCall CALL p(?, ?)", c -> call(c.prepareCall("CALL " + procedure + "(?, ?)"), 1)
                .execute()));
        paths.add(guarded("Statement.execute {call p('t', 1)}", c -> c.createStatement().execute("{call " + procedure
                + "('" + stored(table) + "', 1)}")));
        paths.add(guarded("prepareStatement {call p(?, ?)}", c -> call(c.prepareStatement("{call " + procedure
                + "(?, ?)}"), 1).execute()));
        paths.add(guarded("escape inside a CALL, resolved by nativeSQL", c -> c.createStatement().executeUpdate(
                "CALL " + procedure + "('" + stored(table) + "', {fn abs(-1)})")));
        // Updatable result sets.
        paths.add(guarded("updatable result set: updateRow", c -> {
            ResultSet rs = updatable(c);
            rs.next();
            rs.updateInt("balance", 999);
            rs.updateRow();
        }));
        paths.add(guarded("updatable result set: insertRow", c -> {
            ResultSet rs = updatable(c);
            rs.moveToInsertRow();
            rs.updateInt("id", 9);
            rs.updateInt("balance", 900);
            rs.insertRow();
        }));
        paths.add(guarded("updatable result set: deleteRow", c -> {
            ResultSet rs = updatable(c);
            rs.next();
            rs.deleteRow();
        }));
        // SQL forms.
        paths.add(guarded("multi-statement text", c -> c.createStatement().execute("SELECT 1; " + update)));
        paths.add(guarded("MERGE", c -> c.createStatement().executeUpdate("MERGE INTO " + table + " t USING (SELECT 1"
                + " AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET balance = 0")));
        paths.add(guarded("CREATE TABLE ... AS", c -> c.createStatement().execute("CREATE TABLE " + table + "_copy AS"
                + " SELECT * FROM " + table)));
        paths.add(guarded("TRUNCATE", c -> c.createStatement().execute("TRUNCATE TABLE " + table)));
        paths.add(guarded("ALTER TABLE", c -> c.createStatement().execute("ALTER TABLE " + table
                + " ADD COLUMN extra INT")));
        paths.add(guarded("DROP TABLE", c -> c.createStatement().execute("DROP TABLE " + table)));
        paths.add(guarded("CREATE INDEX", c -> c.createStatement().execute("CREATE INDEX " + table + "_ix ON " + table
                + " (balance)")));
        paths.add(guarded("CALL", c -> c.createStatement().execute("CALL " + procedure + "('" + stored(table)
                + "', 1)")));
        paths.add(guarded("EXPLAIN ANALYZE", c -> c.createStatement().execute("EXPLAIN ANALYZE " + update)));
        paths.add(guarded("comments, quotes, case and white space", c -> c.createStatement().execute(
                "/* a comment; */ uPdAtE\t" + quoted(table) + "\n-- UPDATE nothing;\nSET " + quoted("balance")
                        + " = 0")));
        paths.add(guarded("parenthesised and nested comments", c -> c.createStatement().execute(
                "/* outer /* inner */ still a comment */ DELETE FROM " + table + " WHERE id IN ((SELECT 1))")));
        // The epoch table, even with the current token.
        paths.add(protectedPath("UPDATE the epoch table", c -> c.createStatement().executeUpdate(
                "UPDATE fencing_epoch SET epoch = 1")));
        paths.add(protectedPath("DELETE from the quoted, qualified epoch table", c -> c.createStatement()
                .executeUpdate("DELETE FROM " + quoted(defaultSchema()) + "."
                        + quoted("fencing_epoch"))));
        paths.add(protectedPath("INSERT into the epoch table", c -> c.createStatement().executeUpdate(
                "INSERT INTO FENCING_EPOCH (resource, epoch) VALUES ('x', 99)")));
        paths.add(protectedPath("MERGE into the epoch table", c -> c.createStatement().executeUpdate(
                "MERGE INTO fencing_epoch e USING (SELECT 1 AS one) s ON e.epoch > 0 WHEN MATCHED THEN UPDATE"
                        + " SET epoch = 1")));
        paths.add(protectedPath("TRUNCATE the epoch table", c -> c.createStatement().execute(
                "TRUNCATE TABLE fencing_epoch")));
        paths.add(protectedPath("DROP the epoch table", c -> c.createStatement().execute("DROP TABLE fencing_epoch")));
        paths.add(protectedPath("ALTER the epoch table", c -> c.createStatement().execute(
                "ALTER TABLE fencing_epoch ADD COLUMN x INT")));
        paths.add(protectedPath("rename a table onto the epoch table", c -> c.createStatement().execute(
                "ALTER TABLE " + table + " RENAME TO fencing_epoch")));
        paths.add(protectedPath("prepared write to the epoch table", c -> c.prepareStatement(
                "UPDATE fencing_epoch SET epoch = ? WHERE resource = ?").executeUpdate()));
        paths.add(protectedPath("batch write to the epoch table", c -> c.createStatement().addBatch(
                "DELETE FROM fencing_epoch")));
        paths.add(protectedPath("a call that names the epoch table", c -> c.createStatement().execute(
                "CALL " + procedure + "('FENCING_EPOCH', 1)")));
        // Vendor objects.
        paths.add(protectedPath("unwrap the connection", c -> c.unwrap(database().vendorConnectionType())));
        paths.add(protectedPath("unwrap a statement", c -> c.createStatement().unwrap(database().vendorStatementType())));
        paths.add(protectedPath("unwrap a result set", c -> {
            ResultSet rs = c.createStatement().executeQuery("SELECT id FROM " + table);
            rs.unwrap(database().vendorResultSetType());
        }));
        return paths;
    }

    PreparedStatement insert(PreparedStatement ps) throws SQLException {
        ps.setInt(1, 3);
        ps.setInt(2, 300);
        return ps;
    }

    <T extends PreparedStatement> T call(T cs, int first) throws SQLException {
        cs.setString(first, stored(table));
        cs.setInt(first + 1, 1);
        return cs;
    }

    ResultSet updatable(Connection c) throws SQLException {
        return c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE)
                .executeQuery("SELECT id, balance FROM " + table + " ORDER BY id");
    }

    /**
     * A path that asks for generated keys by column index, which pgjdbc refuses itself (0A000, before anything
     * runs): it exists only where the database's driver supports it.
     */
    Path keyIndexes(String name, Attempt attempt) {
        return supportsKeyColumnIndexes() ? guarded(name, attempt) : null;
    }

    boolean supportsKeyColumnIndexes() {
        return true;
    }

    static Path guarded(String name, Attempt attempt) {
        return new Path(name, Expect.GUARDED, attempt);
    }

    static Path cannotGuard(String name, Attempt attempt) {
        return new Path(name, Expect.CANNOT_GUARD, attempt);
    }

    static Path protectedPath(String name, Attempt attempt) {
        return new Path(name, Expect.PROTECTED, attempt);
    }
}
