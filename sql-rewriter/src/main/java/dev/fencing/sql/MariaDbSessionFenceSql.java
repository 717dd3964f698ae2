package dev.fencing.sql;

import java.util.List;

/**
 * The SQL of the session fence on MariaDB ({@code fencing.guard=session}, both MySQL-family connectors): the one
 * place that knows how a server session registers as the holder of a token, and how a raise of a mark is refused
 * while a session registered below it is alive.
 *
 * <p>A session is named by its {@code CONNECTION_ID()} and the server's start (second since the epoch, read as
 * {@code UNIX_TIMESTAMP() - Uptime} in one statement, so it is the server's own stored start time, unmoved by clock
 * steps): ids start again after a restart, and a row of an earlier start names no live session, so an innocent session
 * that got the same id is never ended.
 *
 * <p>The protocol, enforced by the database:
 * <ul>
 *   <li><b>Register</b> (the driver, in a READ COMMITTED transaction of its own): lock the epoch row
 *       ({@code LOCK IN SHARE MODE}) and read the mark; only when it equals the token, insert the session's row; the
 *       insert's trigger checks again that the row names this very session and the mark under the same lock. After the
 *       commit the driver makes the session read-write ({@code SET SESSION TRANSACTION READ WRITE}).</li>
 *   <li><b>Refuse a raise</b> (a trigger before every update of the epoch table, whichever client raises): while a
 *       session registered for the resource at a lower token is alive (listed in {@code information_schema.PROCESSLIST}
 *       with the same server start), the raise fails with {@link #LIVE_SESSION_STATE}; otherwise it removes the rows
 *       below the new mark (all of ended sessions). A trigger cannot end a
 *       session, so the advancing side does ({@code KILL CONNECTION}, then waits until the server no longer lists it:
 *       a session leaves the list only after its transaction rolled back or committed) and raises again.</li>
 *   <li><b>Protect</b> (triggers on the session table): a session inserts only its own row at the current mark; no
 *       row is ever updated; a row of a live session cannot be deleted.</li>
 * </ul>
 * Whether a session is alive is read by the triggers with their definer's privileges: a definer without
 * {@code PROCESS} sees only its own user's sessions, so the triggers then refuse a raise (and a deletion) over any
 * row of the current server start rather than believe it dead.
 */
public final class MariaDbSessionFenceSql {
    /** What the session table's name adds to the epoch table's (as on PostgreSQL). */
    public static final String SUFFIX = SessionFenceSql.SUFFIX;
    /** The longest name MariaDB keeps. */
    public static final int MAX_NAME = 64;
    /** The SQLSTATE of the raise-refusing trigger: a session registered below the new mark is still alive. */
    public static final String LIVE_SESSION_STATE = "ZFH01";
    /** How long the advancing side waits for the sessions it ended to leave the process list, in milliseconds. */
    public static final int END_SESSION_TIMEOUT_MS = 10_000;
    /** The registration's own isolation, sent before its {@code START TRANSACTION} (it covers that one only). */
    public static final String REGISTRATION_ISOLATION = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";
    /** The registration's transaction: read-write in a session kept read-only (SPEC C10). */
    public static final String REGISTRATION_START = "START TRANSACTION READ WRITE";

    /** The server's start, second since the epoch: its stored start time, read in one statement. */
    public static final String BOOT = "(UNIX_TIMESTAMP() - (SELECT CAST(VARIABLE_VALUE AS SIGNED)"
            + " FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME'))";

    /** Whether the trigger's definer sees every session ({@code PROCESS}); otherwise no session is proved gone. */
    private static final String SEES_ALL = "EXISTS (SELECT 1 FROM information_schema.USER_PRIVILEGES"
            + " WHERE PRIVILEGE_TYPE = 'PROCESS' AND GRANTEE = CONCAT('''', LEFT(CURRENT_USER(), CHAR_LENGTH(CURRENT_USER())"
            + " - CHAR_LENGTH(SUBSTRING_INDEX(CURRENT_USER(), '@', -1)) - 1), '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1),"
            + " ''''))";

    private static final String PROTECT = "'" + EpochSql.MARK_PROTECTED_STATE + "'";

    private final EpochTable sessionTable;
    private final String epoch;
    private final String session;
    private final String prefix;
    private final String epochName;
    private final String sessionName;
    private final String schema;

    /**
     * The session table beside {@code epochTable} (its name and {@link #SUFFIX}, in the same schema), or {@code null}
     * when that name would be longer than MariaDB keeps.
     */
    public static EpochTable sessionTableOf(EpochTable epochTable) {
        String name = epochTable.storedTable(Dialect.MARIADB) + SUFFIX;
        if (name.length() > MAX_NAME) {
            return null;
        }
        String schema = epochTable.storedSchema(Dialect.MARIADB);
        return schema == null ? EpochTable.of(name) : EpochTable.resolved(schema, name);
    }

    /**
     * The session fence beside {@code epochTable}, which should be resolved (qualified).
     *
     * @throws IllegalArgumentException when the session table's name would be longer than MariaDB allows
     */
    public MariaDbSessionFenceSql(EpochTable epochTable) {
        this.sessionTable = sessionTableOf(epochTable);
        if (sessionTable == null) {
            throw new IllegalArgumentException("the session table '" + epochTable.storedTable(Dialect.MARIADB)
                    + SUFFIX + "' would be longer than " + MAX_NAME + " characters: choose a shorter epoch table name");
        }
        this.epoch = epochTable.render(Dialect.MARIADB);
        this.session = sessionTable.render(Dialect.MARIADB);
        this.prefix = epochTable.renderSchemaPrefix(Dialect.MARIADB);
        this.epochName = epochTable.storedTable(Dialect.MARIADB);
        this.sessionName = sessionTable.storedTable(Dialect.MARIADB);
        this.schema = epochTable.storedSchema(Dialect.MARIADB);
    }

    /** The session table's name (as resolved when the epoch table was). */
    public EpochTable sessionTable() {
        return sessionTable;
    }

    /** The rendered, quoted session table name. */
    public String table() {
        return session;
    }

    /** The rendered, quoted epoch table name. */
    public String epochTable() {
        return epoch;
    }

    /** Trigger names start with {@code fencing_protect_}, a protected name: DDL naming one is refused (ZF005). */
    private static String trigger(String kind, String table) {
        String name = "fencing_protect_" + kind + "_" + table;
        return name.length() > MAX_NAME ? name.substring(0, MAX_NAME) : name;
    }

    private String alive(String row) {
        return row + ".boot = " + BOOT + " AND (NOT " + SEES_ALL + " OR EXISTS (SELECT 1 FROM"
                + " information_schema.PROCESSLIST p WHERE p.ID = " + row + ".conn_id))";
    }

    /** The names of the four triggers, in the order of {@link #create()}. */
    public List<String> triggerNames() {
        return List.of(trigger("ho", epochName), trigger("si", sessionName), trigger("su", sessionName),
                trigger("sd", sessionName));
    }

    /** Creates the session table, its protection and the epoch table's raise check; idempotent. */
    public List<String> create() {
        List<String> names = triggerNames();
        String q = "`";
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + session + " (resource VARBINARY(200) NOT NULL,"
                        + " conn_id BIGINT UNSIGNED NOT NULL, boot BIGINT NOT NULL, token BIGINT NOT NULL,"
                        + " PRIMARY KEY (resource, conn_id, boot)) ENGINE=InnoDB",
                "CREATE TRIGGER IF NOT EXISTS " + prefix + q + names.get(0) + q + " BEFORE UPDATE ON " + epoch
                        + " FOR EACH ROW BEGIN DECLARE live BIGINT; DECLARE why VARCHAR(300);"
                        + " IF NEW.epoch > OLD.epoch THEN"
                        + " IF EXISTS (SELECT 1 FROM " + session + " s WHERE s.resource ="
                        + " NEW.resource AND s.token < NEW.epoch AND s.boot = " + BOOT + " LOCK IN SHARE MODE) THEN"
                        + " IF NOT " + SEES_ALL + " THEN SIGNAL SQLSTATE '" + LIVE_SESSION_STATE + "' SET MESSAGE_TEXT ="
                        + " 'fencing: sessions are registered below the new mark and this trigger''s definer lacks"
                        + " PROCESS, so it cannot tell whether they ended: re-create it as a user with PROCESS';"
                        + " END IF;"
                        + " SELECT MIN(p.ID) INTO live FROM " + session + " s JOIN information_schema.PROCESSLIST p"
                        + " ON p.ID = s.conn_id WHERE s.resource = NEW.resource AND s.token < NEW.epoch AND s.boot = "
                        + BOOT + ";"
                        + " IF live IS NOT NULL THEN SET why = CONCAT('fencing: session ', live, ' is registered for"
                        + " this resource below mark ', NEW.epoch, ' and still alive: end it (KILL CONNECTION) before"
                        + " raising the mark'); SIGNAL SQLSTATE '" + LIVE_SESSION_STATE + "' SET MESSAGE_TEXT = why;"
                        + " END IF; END IF;"
                        + " DELETE FROM " + session + " WHERE resource = NEW.resource AND token < NEW.epoch; END IF; END",
                "CREATE TRIGGER IF NOT EXISTS " + prefix + q + names.get(1) + q + " BEFORE INSERT ON " + session
                        + " FOR EACH ROW BEGIN"
                        + " IF NEW.conn_id <> CONNECTION_ID() OR NEW.boot <> " + BOOT + " THEN SIGNAL SQLSTATE " + PROTECT
                        + " SET MESSAGE_TEXT = 'fencing: a session can register only itself'; END IF;"
                        + " IF NOT EXISTS (SELECT 1 FROM " + epoch + " e WHERE e.resource = NEW.resource"
                        + " AND e.epoch = NEW.token LOCK IN SHARE MODE) THEN SIGNAL SQLSTATE " + PROTECT
                        + " SET MESSAGE_TEXT = 'fencing: a session registers only at its resource''s mark'; END IF; END",
                "CREATE TRIGGER IF NOT EXISTS " + prefix + q + names.get(2) + q + " BEFORE UPDATE ON " + session
                        + " FOR EACH ROW SIGNAL SQLSTATE " + PROTECT
                        + " SET MESSAGE_TEXT = 'fencing: the registration of a fenced session cannot change'",
                "CREATE TRIGGER IF NOT EXISTS " + prefix + q + names.get(3) + q + " BEFORE DELETE ON " + session
                        + " FOR EACH ROW BEGIN IF " + alive("OLD") + " THEN SIGNAL SQLSTATE " + PROTECT
                        + " SET MESSAGE_TEXT = 'fencing: the registration of a live session cannot be deleted';"
                        + " END IF; END");
    }

    /**
     * One row whose first column is 1 when {@link #create()} is in force: the session table and the four triggers,
     * each on its table, timing and event with exactly the body {@link #create()} gives it. Parameters
     * {@link #checkParameters()}.
     */
    public String check() {
        return "SELECT CASE WHEN COUNT(*) = 4 THEN 1 ELSE 0 END FROM information_schema.TRIGGERS"
                + " WHERE TRIGGER_SCHEMA = ? AND ACTION_TIMING = 'BEFORE' AND ("
                + "(TRIGGER_NAME = ? AND EVENT_OBJECT_TABLE = ? AND EVENT_MANIPULATION = 'UPDATE' AND ACTION_STATEMENT = ?)"
                + " OR (TRIGGER_NAME = ? AND EVENT_OBJECT_TABLE = ? AND EVENT_MANIPULATION = 'INSERT' AND ACTION_STATEMENT = ?)"
                + " OR (TRIGGER_NAME = ? AND EVENT_OBJECT_TABLE = ? AND EVENT_MANIPULATION = 'UPDATE' AND ACTION_STATEMENT = ?)"
                + " OR (TRIGGER_NAME = ? AND EVENT_OBJECT_TABLE = ? AND EVENT_MANIPULATION = 'DELETE' AND ACTION_STATEMENT = ?))";
    }

    /** The parameters of {@link #check()}, in order. */
    public List<String> checkParameters() {
        List<String> names = triggerNames();
        List<String> create = create();
        return List.of(schema, names.get(0), epochName, body(create.get(1)), names.get(1), sessionName, body(create.get(2)),
                names.get(2), sessionName, body(create.get(3)), names.get(3), sessionName, body(create.get(4)));
    }

    /** What the server keeps as a trigger's body: the statement after {@code FOR EACH ROW }. */
    private static String body(String createTrigger) {
        return createTrigger.substring(createTrigger.indexOf(" FOR EACH ROW ") + " FOR EACH ROW ".length());
    }

    /** Registration step 1: locks the epoch row and reads the mark, waiting at most a second; parameter resource. */
    public String lockMark() {
        return "SET STATEMENT innodb_lock_wait_timeout = 1 FOR SELECT epoch FROM " + epoch
                + " WHERE resource = ? LIMIT 1 LOCK IN SHARE MODE";
    }

    /** Registration step 2: the session's own row; parameters resource, token. */
    public String register() {
        return "INSERT INTO " + session + " (resource, conn_id, boot, token) VALUES (?, CONNECTION_ID(), " + BOOT + ", ?)";
    }

    /**
     * Registration step 3: the session's id and the token of its row as the server now holds it (none when the
     * row is missing); parameter resource.
     */
    public String registered() {
        return "SELECT CONNECTION_ID(), (SELECT s.token FROM " + session + " s WHERE s.resource = ?"
                + " AND s.conn_id = CONNECTION_ID() AND s.boot = " + BOOT + ") LIMIT 1";
    }

    /**
     * The advancing side: the sessions registered for a resource below a token that this session sees alive (its own
     * user's, or every one with {@code PROCESS}); parameters resource, token. Columns: id, user, token. A locking read:
     * it sees the newest committed registrations whatever the raising transaction's snapshot (at REPEATABLE READ a
     * plain read kept the snapshot of the transaction's first read and missed a registration committed after it, which
     * the raise's clean-up then met alive, every time it tried again: found by {@code MariaDbSessionFenceTest}).
     */
    public String liveBelow() {
        return "SELECT p.ID, p.USER, s.token FROM " + session + " s JOIN information_schema.PROCESSLIST p"
                + " ON p.ID = s.conn_id WHERE s.resource = ? AND s.token < ? AND s.boot = " + BOOT + " LIMIT 1000"
                + " LOCK IN SHARE MODE";
    }

    /** The epoch row's exclusive lock, taken before the sessions below are ended; parameter resource. */
    public String lockForRaise() {
        return "SELECT epoch FROM " + epoch + " WHERE resource = ? LIMIT 1 FOR UPDATE";
    }

    /** Ends one session ({@code id} is a number the server listed, never a caller's text). */
    public static String kill(long id) {
        return "KILL CONNECTION " + id;
    }

    /** How many of the ended sessions the server still lists; one parameter per id, {@code count} of them. */
    public static String stillListed(int count) {
        return "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID IN ("
                + String.join(", ", java.util.Collections.nCopies(count, "?")) + ")";
    }
}
