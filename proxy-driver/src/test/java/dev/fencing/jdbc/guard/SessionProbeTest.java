package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.guard.SessionProbe;
import dev.fencing.jdbc.testsupport.Answer;
import dev.fencing.jdbc.testsupport.StubConnection;
import dev.fencing.sql.Dialect;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.util.Map;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC C9: the probe believes the underlying driver's own view of the session (pgjdbc's transaction state, the
 * MySQL protocol's status flags, or the server's answer), here given by stubs of the connectors' status objects.
 */
class SessionProbeTest {
    /** The MySQL protocol's server status flags. */
    private static final int IN_TRANSACTION = 1;
    private static final int AUTOCOMMIT = 2;

    /** A stub of a vendor interface: each named method answers from {@code answers}, anything else fails. */
    private static <T> T vendor(Class<T> type, Map<String, Supplier<Object>> answers) {
        return type.cast(Proxy.newProxyInstance(SessionProbeTest.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> {
                    Supplier<Object> answer = answers.get(method.getName());
                    if (answer == null) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    return answer.get();
                }));
    }

    private static StubConnection pgjdbc(Supplier<Object> state, Supplier<Object> pid, Supplier<Object> mode) {
        return StubConnection.recording("PostgreSQL").wrapping(vendor(org.postgresql.core.BaseConnection.class,
                Map.of("getTransactionState", state, "getBackendPID", pid, "getPreferQueryMode", mode)));
    }

    @Test
    void pgjdbcsTransactionStateDecides_C9() throws SQLException {
        Object[] state = {org.postgresql.core.TransactionState.IDLE};
        StubConnection raw = pgjdbc(() -> state[0], () -> 4711, () -> org.postgresql.jdbc.PreferQueryMode.EXTENDED);
        SessionProbe probe = SessionProbe.of(raw, Dialect.POSTGRESQL);
        assertFalse(probe.inTransaction());
        assertTrue(probe.serverIdle());
        state[0] = org.postgresql.core.TransactionState.OPEN;
        assertTrue(probe.inTransaction(), "a BEGIN sent as SQL opened one");
        assertFalse(probe.serverIdle());
        state[0] = org.postgresql.core.TransactionState.FAILED;
        assertTrue(probe.inTransaction(), "a failed transaction is still open");
        state[0] = org.postgresql.core.TransactionState.IDLE;
        raw.setAutoCommit(false);
        assertTrue(probe.inTransaction(), "auto-commit off: the next statement opens one");
        assertTrue(probe.serverIdle(), "but none is open on the server yet");
        assertEquals(4711, probe.connectedBackendPid());
        assertEquals(0, raw.sent().size(), "pgjdbc's state is read without asking the server");
    }

    @Test
    void pgjdbcsSimpleQueryModeSendsStatementsOneByOne() {
        assertTrue(SessionProbe.sendsStatementsOneByOne(pgjdbc(() -> null, () -> 0,
                () -> org.postgresql.jdbc.PreferQueryMode.SIMPLE)));
        assertFalse(SessionProbe.sendsStatementsOneByOne(pgjdbc(() -> null, () -> 0,
                () -> org.postgresql.jdbc.PreferQueryMode.EXTENDED_FOR_PREPARED)));
        assertFalse(SessionProbe.sendsStatementsOneByOne(StubConnection.recording("H2")), "not pgjdbc at all");
        assertTrue(SessionProbe.sendsStatementsOneByOne(pgjdbc(() -> null, () -> 0, () -> {
            throw new IllegalStateException("cannot tell");
        })), "a driver that cannot say is never relied on");
    }

    @Test
    void mysqlConnectorsStatusFlagsDecide_C9() throws SQLException {
        int[] flags = {AUTOCOMMIT};
        Object serverSession = vendor(com.mysql.cj.protocol.ServerSession.class,
                Map.of("getStatusFlags", () -> flags[0]));
        Object session = vendor(com.mysql.cj.Session.class, Map.of("getServerSession", () -> serverSession));
        StubConnection raw = StubConnection.recording("MariaDB")
                .wrapping(vendor(com.mysql.cj.MysqlConnection.class, Map.of("getSession", () -> session)));
        SessionProbe probe = SessionProbe.of(raw, Dialect.MARIADB);
        assertFalse(probe.inTransaction());
        flags[0] = AUTOCOMMIT | IN_TRANSACTION;
        assertTrue(probe.inTransaction(), "START TRANSACTION sent as SQL");
        flags[0] = 0;
        assertTrue(probe.inTransaction(), "SET autocommit = 0 sent as SQL");
        flags[0] = AUTOCOMMIT | 8;
        assertFalse(probe.inTransaction(), "other flags mean nothing here");
        assertTrue(probe.serverIdle(), "no transaction open by the flags: the session fence may register");
        flags[0] = AUTOCOMMIT | IN_TRANSACTION;
        assertFalse(probe.serverIdle(), "a transaction open: nothing of the session fence's may run in it");
        flags[0] = 0;
        assertTrue(probe.serverIdle(), "auto-commit off, no transaction open yet");
        assertEquals(0, probe.connectedBackendPid());
        assertEquals(0, raw.sent().size(), "the flags are read without asking the server");
    }

    @Test
    void anotherMySqlFamilyDriverMakesTheProbeAskTheServer_C9() throws SQLException {
        int[] answer = {0, 1};
        StubConnection raw = StubConnection.recording("MariaDB")
                .answering(sql -> Answer.rows(new Object[] {answer[0], answer[1]}));
        SessionProbe probe = SessionProbe.of(raw, Dialect.MARIADB);
        assertFalse(probe.inTransaction());
        answer[0] = 1;
        assertTrue(probe.inTransaction());
        answer[0] = 0;
        answer[1] = 0;
        assertTrue(probe.inTransaction(), "auto-commit off on the server");
        assertEquals(3, raw.sent().size());
        assertTrue(raw.sent().stream().allMatch("SELECT @@in_transaction, @@autocommit LIMIT 1"::equals), raw.sent()::toString);
        raw.answering(sql -> Answer.rows());
        assertFalse(probe.inTransaction(), "no row: nothing says a transaction is open");
    }

    @Test
    void elsewhereOnlyTheAutoCommitSettingCounts() throws SQLException {
        StubConnection raw = StubConnection.recording("H2");
        SessionProbe probe = SessionProbe.of(raw, Dialect.GENERIC);
        assertFalse(probe.inTransaction());
        raw.setAutoCommit(false);
        assertTrue(probe.inTransaction());
        assertFalse(probe.serverIdle());
        assertEquals(0, raw.sent().size());
    }
}
