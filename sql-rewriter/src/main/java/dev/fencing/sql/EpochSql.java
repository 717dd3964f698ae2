package dev.fencing.sql;

import java.util.List;

/**
 * Every SQL statement the fence itself sends about the epoch table, per dialect: the one place that knows
 * how a guard locks the epoch row and how an advance raises it.
 *
 * <p>Parameters are always {@code resource} then {@code token}. The epoch table has one row per resource
 * ({@code resource} primary key, {@code epoch} the high-water mark); a missing row means the mark is 0.
 */
public final class EpochSql {
    /**
     * The SQLState the PostgreSQL guard function raises when the mark is above the token (stale); its DETAIL field
     * is the mark, its HINT field the send's nonce. The driver turns it into its stale refusal only when the HINT
     * is the nonce it sent: a caller's own error with this state is the caller's.
     */
    public static final String GUARD_STALE_STATE = "ZFG01";

    /**
     * The SQLState the PostgreSQL guard function raises when the mark is below the token or missing (behind): the
     * mark must be raised first. Its HINT field is the send's nonce, as for {@link #GUARD_STALE_STATE}.
     */
    public static final String GUARD_BEHIND_STATE = "ZFG02";

    /**
     * The SQLState the database's own protection of the epoch table raises when a write would lower, delete,
     * truncate or rename a high-water mark: the driver's {@code FencingSqlState.PROTECTED}, which this library
     * cannot see (FencingSqlStateTest checks they are the same).
     */
    public static final String MARK_PROTECTED_STATE = "ZF005";

    /** The first key of the fence's PostgreSQL advisory locks ("FENC"); the second is the resource's hash. */
    static final int ADVISORY_CLASS = 0x46454E43;

    /**
     * How long an advance waits for each lock (the resource's advisory lock, the epoch row) when the session's own
     * {@code lock_timeout} is 0, in milliseconds: then it fails (55P03) naming who holds it.
     */
    public static final int ADVANCE_LOCK_TIMEOUT_MS = 30_000;

    /**
     * The savepoint a PostgreSQL advance is taken in, so a wait past its bound leaves the transaction usable to say
     * who held it; {@link #ADVANCE_ROLLBACK} and {@link #ADVANCE_RELEASE} end it.
     */
    public static final String ADVANCE_SAVEPOINT = "SAVEPOINT fencing_advance";
    public static final String ADVANCE_ROLLBACK = "ROLLBACK TO SAVEPOINT fencing_advance";
    public static final String ADVANCE_RELEASE = "RELEASE SAVEPOINT fencing_advance";

    /** The H2 trigger class that protects the marks; H2 runs it in-process (an H2 server needs the jar). */
    public static final String H2_TRIGGER_CLASS = "dev.fencing.jdbc.H2EpochTrigger";

    /**
     * The start of the calls that record, for the rest of the transaction, the resource and token the driver's guard
     * checked, in the custom settings an enforcement trigger reads ({@link EnforceSql}): so the driver's own writes
     * pass enforced tables with no statement more. The trigger checks the token against the locked mark again, so a
     * client that sets them itself gains nothing a token would not give it.
     */
    private static final String CLAIM = "pg_catalog.set_config('" + EnforceSql.GUARD_RECORD_SETTING + "', ";
    /** What the record holds before a statement's first entry: an entry is {@code resource token,} after a comma. */
    private static final String CLAIM_START = "','";
    /** What a further entry of the same statement is added to: the record so far in this transaction. */
    private static final String CLAIM_SO_FAR = "COALESCE(NULLIF(pg_catalog.current_setting('"
            + EnforceSql.GUARD_RECORD_SETTING + "', true), ''), ',')";

    /** The start of the name of a PostgreSQL guard function; the rest names its epoch table. */
    private static final String GUARD_FUNCTION_PREFIX = "fencing_guard_";

    /**
     * Lower-case parts of the names of every object that protects the marks (PostgreSQL's function and triggers and
     * its guard function, H2's trigger class and foreign key, MariaDB's two triggers): DDL naming one is a write to
     * the epoch table.
     */
    public static final List<String> PROTECTION_NAMES = List.of("fencing_protect_", "fencing_no_truncate",
            "h2epochtrigger", "fencing_upd_", "fencing_del_", GUARD_FUNCTION_PREFIX, EnforceSql.NAME_PREFIX);

    /**
     * The guard function's parameters: the resource, the token, and the send's nonce that its verdicts echo in HINT.
     * A body that changes its parameters is a new function beside the old one, which stays for drivers before it.
     */
    private static final String GUARD_PARAMETERS = "(resource_name text, token bigint, nonce bigint)";
    /** {@link #GUARD_PARAMETERS} as {@code regprocedure} spells the types. */
    private static final String GUARD_SIGNATURE = "(text,bigint,bigint)";

    /** The PostgreSQL trigger function (created in the epoch table's schema) and the names of its two triggers. */
    private static final String PG_FUNCTION = "fencing_protect_mark";
    private static final String PG_ROW_TRIGGER = "fencing_protect_mark";
    private static final String PG_TRUNCATE_TRIGGER = "fencing_protect_truncate";
    /** The body of {@link #PG_FUNCTION}; validate compares the stored body with it, so a replaced body is found. */
    private static final String PG_FUNCTION_BODY = "\nBEGIN\n"
            + "  IF TG_OP = 'TRUNCATE' THEN\n"
            + "    RAISE EXCEPTION 'fencing: %.% holds high-water marks and cannot be truncated', TG_TABLE_SCHEMA,"
            + " TG_TABLE_NAME USING ERRCODE = '" + MARK_PROTECTED_STATE + "';\n"
            + "  ELSIF TG_OP = 'DELETE' THEN\n"
            + "    RAISE EXCEPTION 'fencing: the high-water mark of resource % cannot be deleted', OLD.resource"
            + " USING ERRCODE = '" + MARK_PROTECTED_STATE + "';\n"
            + "  ELSIF NEW.resource IS DISTINCT FROM OLD.resource THEN\n"
            + "    RAISE EXCEPTION 'fencing: the resource of a high-water mark cannot change (% to %)', OLD.resource,"
            + " NEW.resource USING ERRCODE = '" + MARK_PROTECTED_STATE + "';\n"
            + "  ELSIF NEW.epoch < OLD.epoch THEN\n"
            + "    RAISE EXCEPTION 'fencing: the high-water mark of resource % cannot go down (% to %)', OLD.resource,"
            + " OLD.epoch, NEW.epoch USING ERRCODE = '" + MARK_PROTECTED_STATE + "';\n"
            + "  END IF;\n"
            + "  RETURN NEW;\n"
            + "END\n";

    private final Dialect dialect;
    private final EpochTable epochTable;
    private final String table;

    public EpochSql(Dialect dialect, EpochTable epochTable) {
        this.dialect = dialect;
        this.epochTable = epochTable;
        this.table = epochTable.render(dialect);
    }

    public Dialect dialect() {
        return dialect;
    }

    /** The rendered, quoted epoch table name. */
    public String table() {
        return table;
    }

    /** The epoch table as this SQL names it. */
    public EpochTable epochTable() {
        return epochTable;
    }

    /**
     * The guard statement sent ahead of the caller's untouched text, in the same round trip and the same
     * transaction: it calls the epoch table's guard function ({@link #protect()} creates it), which share-locks the
     * epoch row when the mark equals the token and otherwise raises {@link #GUARD_STALE_STATE} (the mark is above the
     * token; the mark in the error's DETAIL) or {@link #GUARD_BEHIND_STATE} (below or missing), so nothing after it
     * runs. Either error carries the send's nonce (its third parameter) in its HINT field: only the driver that
     * sent the nonce knows it, so a caller's error raising the same state is never taken for the guard's verdict.
     * {@code null} where the dialect has no single round trip for two statements.
     */
    public GuardedSql prefixGuard() {
        if (dialect != Dialect.POSTGRESQL) {
            return null;
        }
        return new GuardedSql("SELECT " + guardFunction() + "(CAST(? AS pg_catalog.text), CAST(? AS pg_catalog.int8),"
                + " CAST(? AS pg_catalog.int8)), " + claim(CLAIM_START, "CAST(? AS pg_catalog.text)",
                "CAST(CAST(? AS pg_catalog.int8) AS pg_catalog.text)"),
                List.of(GuardedSql.Marker.RESOURCE, GuardedSql.Marker.TOKEN, GuardedSql.Marker.NONCE,
                        GuardedSql.Marker.RESOURCE, GuardedSql.Marker.TOKEN));
    }

    /**
     * The guard function's name, qualified like the epoch table: {@code fencing_guard_} and the table's name, cut to
     * PostgreSQL's 63 bytes with a hash of the whole name so that two long table names never share one function.
     */
    String guardFunction() {
        return besideTable(GUARD_FUNCTION_PREFIX);
    }

    /**
     * A function beside the epoch table: {@code prefix} and the table's name, qualified like the table, cut to
     * PostgreSQL's 63 bytes with a hash of the whole name so that two long table names never share one function.
     */
    String besideTable(String prefix) {
        String tableName = epochTable.storedTable(dialect);
        String name = prefix + tableName; // table names are ASCII identifiers (EpochTable)
        if (name.length() > 63) {
            java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(tableName.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            name = name.substring(0, 54) + String.format("_%08x", crc.getValue());
        }
        return epochTable.renderSchemaPrefix(dialect) + dialect.quoteExact(name);
    }

    /**
     * The body of the guard function: the same locking read as {@link #lockAtLeast()}, then a verdict raised with a
     * state of its own. Its search_path is pinned to {@code pg_catalog} and the table is qualified, so no session
     * setting changes what it reads or how it compares; validate compares the stored body with this one.
     */
    private String guardBody() {
        return "\nDECLARE\n"
                + "  found_mark bigint;\n"
                + "BEGIN\n"
                + "  " + guardLockingRead("resource_name", "token") + "\n"
                + "  IF found_mark IS NULL THEN\n"
                + "    RAISE EXCEPTION 'fencing: the high-water mark of resource % is below token %', resource_name, token"
                + " USING ERRCODE = '" + GUARD_BEHIND_STATE + "', HINT = CAST(nonce AS text);\n"
                + "  ELSIF found_mark <> token THEN\n"
                + "    RAISE EXCEPTION 'fencing: stale token % for resource %: the resource has accepted token %', token,"
                + " resource_name, found_mark USING ERRCODE = '" + GUARD_STALE_STATE + "', DETAIL = CAST(found_mark AS"
                + " text), HINT = CAST(nonce AS text);\n"
                + "  END IF;\n"
                + "  RETURN 1;\n"
                + "END\n";
    }

    /**
     * The guard function's locking read, in plpgsql: the mark into {@code found_mark} when it is at least the token,
     * with the epoch row's shared lock and the resource's advisory lock in shared mode; null otherwise. The
     * enforcement trigger ({@link EnforceSql}) runs the same read, so both check a token by one text.
     */
    String guardLockingRead(String resourceVariable, String tokenVariable) {
        return "SELECT epoch INTO found_mark FROM " + table + " WHERE resource = " + resourceVariable + " AND epoch >= "
                + tokenVariable + " AND pg_advisory_xact_lock_shared(" + ADVISORY_CLASS + ", hashtext(resource)) IS NOT"
                + " NULL FOR SHARE;";
    }

    /**
     * Locks the epoch row when its mark is at least the token and returns that mark; no row means the mark is
     * below the token (or missing) and an advance is due.
     */
    public String lockAtLeast() {
        if (dialect == Dialect.POSTGRESQL) {
            return postgresLockAtLeast(CLAIM_START);
        }
        if (dialect == Dialect.MARIADB) {
            return mariaDbLockAtLeast("',',");
        }
        return "SELECT epoch FROM " + table + " WHERE resource " + dialect.op("=") + " ? AND epoch " + dialect.op(">=")
                + " ?" + queueShared() + dialect.oneRow() + " " + dialect.rowLockClause();
    }

    /**
     * {@link #lockAtLeast()} for a further resource of the same statement: on MariaDB it adds the resource and token
     * to the record the statement's first locking read started, rather than starting a new one. The same text
     * elsewhere.
     */
    public String lockAtLeastAdding() {
        switch (dialect) {
            case POSTGRESQL:
                return postgresLockAtLeast(CLAIM_SO_FAR);
            case MARIADB:
                return mariaDbLockAtLeast("IFNULL(" + MariaDbEnforceSql.GUARD_VARIABLE + ", ','),");
            default:
                return lockAtLeast();
        }
    }

    /**
     * PostgreSQL's locking read, which records (as the prefix guard does) the resource and the token it checked in
     * {@link EnforceSql#GUARD_RECORD_SETTING} for the rest of the transaction, added to {@code recordSoFar}.
     */
    private String postgresLockAtLeast(String recordSoFar) {
        return "SELECT e.epoch, " + claim(recordSoFar, "e.resource", "CAST(p.token AS pg_catalog.text)")
                + " FROM (SELECT CAST(? AS pg_catalog.text) AS resource, CAST(? AS"
                + " pg_catalog.int8) AS token) p, " + table + " e WHERE e.resource OPERATOR(pg_catalog.=) p.resource"
                + " AND e.epoch OPERATOR(pg_catalog.>=) p.token AND pg_catalog.pg_advisory_xact_lock_shared("
                + ADVISORY_CLASS + ", pg_catalog.hashtext(e.resource)) IS NOT NULL FOR SHARE OF e";
    }

    /** The call that sets the record to {@code soFar}, then the resource and token as one more entry. */
    private static String claim(String soFar, String resource, String token) {
        return CLAIM + "pg_catalog.concat(" + soFar + ", " + resource + ", ' ', " + token + ", ','), true)";
    }

    /**
     * MariaDB's locking read, which also records the resource and the token it checked (not the mark it found) in
     * {@link MariaDbEnforceSql#GUARD_VARIABLE} for the enforcement triggers of the statement that follows, in the same
     * statement, so the driver's writes pass them with nothing more sent. Parameters resource, token, as everywhere.
     * Only a row at or above the token is returned, so only then is anything recorded; the trigger checks the token
     * against the mark again.
     */
    private String mariaDbLockAtLeast(String recordSoFar) {
        return "SELECT e.epoch, " + MariaDbEnforceSql.GUARD_VARIABLE + " := CONCAT(" + recordSoFar + " p.resource, ' ',"
                + " p.token, ',') FROM (SELECT CAST(? AS BINARY) AS resource, CAST(? AS SIGNED) AS token) p JOIN " + table
                + " e ON e.resource = p.resource AND e.epoch >= p.token" + dialect.oneRow() + " " + dialect.rowLockClause();
    }

    /**
     * The guard's locking read on MariaDB as a scalar query over SQL expressions for the resource and the token: the
     * mark when it is at least the token, with the epoch row's shared lock; null otherwise. The enforcement procedure
     * ({@link MariaDbEnforceSql}) runs it, so both check a token by the same read.
     */
    String lockAtLeastOf(String resourceExpression, String tokenExpression) {
        return "SELECT " + READ_ALIAS + ".epoch FROM " + table + " AS " + READ_ALIAS + " WHERE " + READ_ALIAS
                + ".resource = " + resourceExpression + " AND " + READ_ALIAS + ".epoch >= " + tokenExpression
                + dialect.oneRow() + " " + dialect.rowLockClause();
    }

    /**
     * {@link #readMark()} as a scalar query over an SQL expression for the resource. Inside a data-changing statement
     * (a trigger's procedure) MariaDB reads it with a shared lock under REPEATABLE READ.
     */
    String readMarkOf(String resourceExpression) {
        return "SELECT " + READ_ALIAS + ".epoch FROM " + table + " AS " + READ_ALIAS + " WHERE " + READ_ALIAS
                + ".resource = " + resourceExpression + dialect.oneRow();
    }

    /**
     * The alias of the epoch table in the enforcement procedure's reads. MariaDB opens every table a statement's
     * triggers and routines use once per name and alias, with the strongest lock any of their statements needs; InnoDB
     * then reads a table opened for writing with exclusive row locks, even under {@code LOCK IN SHARE MODE}. Without
     * an alias the procedure's reads would share the handle of its advance's {@code UPDATE} and take the epoch row
     * exclusively on every row change: writers of one token would serialize and deadlock with the driver's shared
     * lock (measured on 10.11: 4 writers, "Deadlock found"). Under an alias of their own they take it shared.
     */
    private static final String READ_ALIAS = "fencing_read";

    /**
     * Whether the locking read records the token it checked for enforcement triggers (PostgreSQL's custom settings,
     * MariaDB's {@link MariaDbEnforceSql#GUARD_VARIABLE}): then after an advance the guard runs it once more, so the
     * statement that follows passes the triggers.
     */
    public boolean lockingReadRecords() {
        return dialect == Dialect.POSTGRESQL || dialect == Dialect.MARIADB;
    }

    /**
     * The mark, read with the epoch row's shared lock (and, on PostgreSQL, the resource's advisory lock in shared
     * mode) whatever its value; parameter resource. No row, no lock. Admits a transaction at a token at or above
     * the mark without raising it: no advance can commit while the lock is held (SPEC C10).
     */
    public String lockMark() {
        return "SELECT epoch FROM " + table + " WHERE resource " + dialect.op("=") + " ?" + queueShared()
                + dialect.oneRow() + " " + dialect.rowLockClause();
    }

    /**
     * Whether a guard that does not know the mark should read it without a lock before taking the row lock. InnoDB
     * keeps the shared lock of a locking read even when the row does not match ({@code epoch >= token} false), so
     * two first writers of a new epoch would both hold it and deadlock upgrading it for the advance (measured on
     * MariaDB 10.11: 8 concurrent first writers, "Deadlock found"). Reading first sends a writer that must advance
     * straight to the exclusive advance, which waits for the other and re-reads the newest row. The read only
     * chooses the path; the locks decide (a stale unlocked read at worst serializes the writer).
     */
    public boolean readMarkBeforeLocking() {
        return dialect == Dialect.MARIADB;
    }

    /** Reads the mark without a lock; parameter: resource. Used to word an error message and to choose a path. */
    public String readMark() {
        return "SELECT epoch FROM " + table + " WHERE resource " + dialect.op("=") + " ?" + dialect.oneRow();
    }

    /**
     * PostgreSQL lets new share-lockers of a row join the ones that hold it while an exclusive locker waits, so
     * overlapping writers of the old epoch could hold an advance off indefinitely. Its advisory locks queue
     * fairly: every guard also takes the resource's advisory lock in shared mode (a condition on the epoch row,
     * so only when the row is there), and {@link #advanceQueue()} takes it exclusively before an advance, after
     * which no new guard starts until the advance ends. The row lock still decides; the advisory lock only
     * orders the waiting. Empty elsewhere.
     */
    private String queueShared() {
        return dialect == Dialect.POSTGRESQL ? " AND pg_catalog.pg_advisory_xact_lock_shared(" + ADVISORY_CLASS
                + ", pg_catalog.hashtext(resource)) IS NOT NULL" : "";
    }

    /**
     * Taken before an advance, in its transaction and after {@link #ADVANCE_SAVEPOINT}: bounds the advance's lock
     * waits, then takes the resource's advisory lock in exclusive mode (see {@link #queueShared()}); parameter
     * resource. The bound is the session's {@code lock_timeout}, or {@link #ADVANCE_LOCK_TIMEOUT_MS} when it is 0
     * (wait forever), set for the transaction; the one row returned holds the {@code lock_timeout} in force before,
     * in milliseconds, for {@link #advanceBoundRestore()}. The subquery (kept apart by {@code OFFSET 0}) yields its
     * row, so sets the bound, before the lock is asked for. {@code null} where the dialect needs none.
     */
    public String advanceQueue() {
        return dialect == Dialect.POSTGRESQL ? "SELECT b.previous, pg_catalog.pg_advisory_xact_lock(" + ADVISORY_CLASS
                + ", pg_catalog.hashtext(CAST(? AS text))) FROM (SELECT s.setting AS previous,"
                + " pg_catalog.set_config('lock_timeout', CASE WHEN s.setting " + dialect.op("=") + " '0' THEN '"
                + ADVANCE_LOCK_TIMEOUT_MS + "' ELSE s.setting END, true) AS bound FROM pg_catalog.pg_settings s"
                + " WHERE s.name " + dialect.op("=") + " 'lock_timeout' OFFSET 0) b" : null;
    }

    /**
     * After an advance that got its locks: the {@code lock_timeout} in force before {@link #advanceQueue()} again
     * (for the rest of the caller's transaction); parameter the value it returned.
     */
    public String advanceBoundRestore() {
        return "SELECT pg_catalog.set_config('lock_timeout', ?, true)";
    }

    /**
     * After an advance that waited longer than its bound (and was rolled back to {@link #ADVANCE_SAVEPOINT}): the
     * other sessions that hold what it waits for, the resource's advisory lock or the transaction that locks its
     * epoch row, one row each (pid, application_name, usename, state); parameters resource, resource.
     */
    public String advanceHolders() {
        String eq = dialect.op("=");
        return "SELECT a.pid, a.application_name, a.usename, a.state FROM pg_catalog.pg_stat_activity a"
                + " WHERE a.pid " + dialect.op("<>") + " pg_catalog.pg_backend_pid() AND a.pid IN (SELECT l.pid FROM"
                + " pg_catalog.pg_locks l WHERE l.granted AND ((l.locktype " + eq + " 'advisory' AND l.classid " + eq
                + " pg_catalog.oid(" + ADVISORY_CLASS + ") AND l.objid " + eq + " pg_catalog.oid(CAST(pg_catalog.hashtext("
                + "CAST(? AS text)) AS bigint) " + dialect.op("&") + " 4294967295) AND l.objsubid " + eq + " 2)"
                + " OR (l.locktype " + eq + " 'transactionid' AND l.transactionid " + eq + " (SELECT e.xmax FROM "
                + table + " e WHERE e.resource " + eq + " ?)))) ORDER BY a.pid";
    }

    /**
     * Raises the mark to the token when it is not above it, inserting the row when missing; parameters
     * resource, token (and on some dialects token again: see {@link #advanceBindsTokenTwice()}). One row
     * changed means the mark is now the token and the row is locked exclusively; zero means it is higher.
     * Dialects without an upsert return {@code null} and use {@link #raise()} then {@link #insertFirst()}.
     */
    public String advance() {
        switch (dialect) {
            case POSTGRESQL:
                return "INSERT INTO " + table + " (resource, epoch) VALUES (?, ?) ON CONFLICT (resource) DO UPDATE"
                        + " SET epoch = EXCLUDED.epoch WHERE " + table + ".epoch " + dialect.op("<=") + " EXCLUDED.epoch";
            default:
                return null;
        }
    }

    /** Raises an existing row: parameters token, resource, token. One row changed: the mark is now the token. */
    public String raise() {
        return "UPDATE " + table + " SET epoch = ? WHERE resource " + dialect.op("=") + " ? AND epoch " + dialect.op("<=")
                + " ?";
    }

    /** Inserts the first row of a resource: parameters resource, token. Fails with a duplicate key if it exists. */
    public String insertFirst() {
        return "INSERT INTO " + table + " (resource, epoch) VALUES (?, ?)";
    }

    /** Creates the epoch table when it is missing. */
    public String createTable() {
        return "CREATE TABLE IF NOT EXISTS " + table + " (resource " + resourceType(dialect)
                + " NOT NULL PRIMARY KEY, epoch BIGINT NOT NULL CHECK (epoch > 0))" + tableOptions(dialect);
    }

    /**
     * The type of a fence table's {@code resource} column. On MariaDB and MySQL a {@code VARCHAR} compares with
     * the server's default collation, which ignores case and trailing spaces ({@code 'HOCASE' = 'hocase'},
     * {@code 'x' = 'x '}), so two resources would share one mark; {@code VARBINARY} compares bytes exactly on
     * every version of both (a {@code _bin} collation still pads spaces).
     */
    static String resourceType(Dialect dialect) {
        return dialect == Dialect.MARIADB ? "VARBINARY(200)" : "VARCHAR(200)";
    }

    /** Table options of a fence table: on MariaDB and MySQL InnoDB, whose row locks and transactions the guard needs. */
    static String tableOptions(Dialect dialect) {
        return dialect == Dialect.MARIADB ? " ENGINE=InnoDB" : "";
    }

    /**
     * A query returning one row whose first column is 1 when a fence table ({@code resource} column) compares
     * resource names exactly and is transactional (MariaDB and MySQL: InnoDB, and a {@code resource} column of
     * {@code VARBINARY} or of a binary collation without padding), 0 otherwise; parameters schema, table.
     * {@code null} where every table the fence accepts compares exactly (PostgreSQL, H2).
     */
    public static String exactnessCheck(Dialect dialect) {
        if (dialect != Dialect.MARIADB) {
            return null;
        }
        return "SELECT CASE WHEN t.ENGINE = 'InnoDB' AND (c.DATA_TYPE = 'varbinary'"
                + " OR c.COLLATION_NAME LIKE '%\\_nopad\\_bin' OR c.COLLATION_NAME = 'utf8mb4_0900_bin') THEN 1 ELSE 0 END"
                + " FROM information_schema.TABLES t JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = t.TABLE_SCHEMA"
                + " AND c.TABLE_NAME = t.TABLE_NAME AND c.COLUMN_NAME = 'resource'"
                + " WHERE t.TABLE_SCHEMA = ? AND t.TABLE_NAME = ?";
    }

    /** The parameters of {@link #exactnessCheck(Dialect)} for this epoch table (resolved, so qualified). */
    public List<String> exactnessParameters() {
        return List.of(epochTable.storedSchema(dialect), epochTable.storedTable(dialect));
    }

    /** Makes an existing epoch table compare resource names exactly and transactional ({@link #exactnessCheck}). */
    public String makeExact() {
        return makeExact(dialect, table);
    }

    static String makeExact(Dialect dialect, String renderedTable) {
        return "ALTER TABLE " + renderedTable + tableOptions(dialect) + ", MODIFY resource " + resourceType(dialect)
                + " NOT NULL";
    }

    /** A query that fails when the epoch table is missing or lacks its columns. */
    public String validateTable() {
        return "SELECT resource, epoch FROM " + table + " WHERE 1 = 0";
    }

    /**
     * The statements that make the database itself refuse any decrease, deletion, truncation or change of
     * resource of a mark, whoever writes the table (SPEC C9); idempotent, for an existing epoch table. Empty where
     * the dialect has none ({@link Dialect#GENERIC}). On MariaDB {@code TRUNCATE} fires no trigger and stays open.
     */
    public List<String> protect() {
        String prefix = epochTable.renderSchemaPrefix(dialect);
        String tableName = epochTable.storedTable(dialect);
        switch (dialect) {
            case POSTGRESQL:
                String function = prefix + dialect.quoteExact(PG_FUNCTION);
                return List.of(
                        "CREATE OR REPLACE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql"
                                + " SET search_path = pg_catalog AS $fencing$"
                                + PG_FUNCTION_BODY + "$fencing$",
                        "CREATE OR REPLACE FUNCTION " + guardFunction() + GUARD_PARAMETERS
                                + " RETURNS integer LANGUAGE plpgsql VOLATILE SECURITY INVOKER"
                                + " SET search_path = pg_catalog AS $fencing$" + guardBody() + "$fencing$",
                        "CREATE OR REPLACE TRIGGER " + dialect.quoteExact(PG_ROW_TRIGGER) + " BEFORE UPDATE OR DELETE ON "
                                + table + " FOR EACH ROW EXECUTE FUNCTION " + function + "()",
                        "CREATE OR REPLACE TRIGGER " + dialect.quoteExact(PG_TRUNCATE_TRIGGER) + " BEFORE TRUNCATE ON "
                                + table + " FOR EACH STATEMENT EXECUTE FUNCTION " + function + "()");
            case H2:
                // H2's TRUNCATE fires no trigger, but refuses a table that a foreign key references: the table
                // references itself (every row its own row), which changes nothing else.
                return List.of(
                        "CREATE TRIGGER IF NOT EXISTS " + prefix + dialect.quoteExact("FENCING_PROTECT_" + tableName)
                                + " BEFORE UPDATE, DELETE ON " + table + " FOR EACH ROW CALL '" + H2_TRIGGER_CLASS + "'",
                        "ALTER TABLE " + table + " ADD CONSTRAINT IF NOT EXISTS " + prefix
                                + dialect.quoteExact("FENCING_NO_TRUNCATE_" + tableName)
                                + " FOREIGN KEY (resource) REFERENCES " + table + " (resource)");
            case MARIADB:
                return List.of(
                        "CREATE TRIGGER IF NOT EXISTS " + prefix + dialect.quoteExact(mariaTrigger("upd", tableName))
                                + " BEFORE UPDATE ON " + table + " FOR EACH ROW BEGIN"
                                + " IF CAST(NEW.resource AS BINARY) <> CAST(OLD.resource AS BINARY) THEN SIGNAL SQLSTATE '"
                                + MARK_PROTECTED_STATE + "' SET MESSAGE_TEXT = 'fencing: the resource of a high-water"
                                + " mark cannot change';"
                                + " ELSEIF NEW.epoch < OLD.epoch THEN SIGNAL SQLSTATE '" + MARK_PROTECTED_STATE
                                + "' SET MESSAGE_TEXT = 'fencing: a high-water mark cannot go down'; END IF; END",
                        "CREATE TRIGGER IF NOT EXISTS " + prefix + dialect.quoteExact(mariaTrigger("del", tableName))
                                + " BEFORE DELETE ON " + table + " FOR EACH ROW SIGNAL SQLSTATE '"
                                + MARK_PROTECTED_STATE + "' SET MESSAGE_TEXT = 'fencing: a high-water mark cannot be"
                                + " deleted'");
            default:
                return List.of();
        }
    }

    /** A MariaDB trigger name (unique per schema, at most 64 characters). */
    private static String mariaTrigger(String event, String tableName) {
        String name = "fencing_" + event + "_" + tableName;
        return name.length() > 64 ? name.substring(0, 64) : name;
    }

    /**
     * A query returning one row whose first column is 1 when {@link #protect()} is in force on the table (every
     * trigger present, enabled and firing on the right events; on PostgreSQL with the function body unchanged and
     * its {@code search_path} pinned to {@code pg_catalog}, so a session's operators cannot change its comparisons),
     * 0 otherwise; parameters {@link #protectionParameters()}. {@code null} where the dialect has none.
     */
    public String protectionCheck() {
        switch (dialect) {
            case POSTGRESQL:
                // tgtype bits: 1 row, 2 before, 8 delete, 16 update, 32 truncate
                return "SELECT CASE WHEN COALESCE(bool_or(t.tgtype & 27 = 27 AND t.tgname = '" + PG_ROW_TRIGGER + "'), false)"
                        + " AND COALESCE(bool_or(t.tgtype & 35 = 34 AND t.tgname = '" + PG_TRUNCATE_TRIGGER + "'), false)"
                        + " THEN 1 ELSE 0 END FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid"
                        + " WHERE t.tgrelid = CAST(? AS regclass) AND t.tgenabled IN ('O', 'A')"
                        + " AND t.tgqual IS NULL AND cardinality(CAST(t.tgattr AS int2[])) = 0"
                        + " AND p.prosrc = ? AND p.prolang = (SELECT oid FROM pg_catalog.pg_language WHERE lanname = 'plpgsql')"
                        + " AND p.proconfig = ARRAY['search_path=pg_catalog']"
                        + " AND EXISTS (SELECT 1 FROM pg_catalog.pg_proc g WHERE g.oid = pg_catalog.to_regprocedure(?)"
                        + " AND g.prosrc = ? AND g.prolang = p.prolang AND g.provolatile = 'v' AND NOT g.prosecdef"
                        + " AND g.proconfig = ARRAY['search_path=pg_catalog'])";
            case H2:
                return "SELECT CASE WHEN (SELECT COUNT(DISTINCT EVENT_MANIPULATION) FROM INFORMATION_SCHEMA.TRIGGERS"
                        + " WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? AND ACTION_TIMING = 'BEFORE'"
                        + " AND ACTION_ORIENTATION = 'ROW' AND JAVA_CLASS = ? AND EVENT_MANIPULATION IN ('UPDATE', 'DELETE')) = 2"
                        + " AND EXISTS (SELECT 1 FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS fk"
                        + " JOIN INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS rc ON rc.CONSTRAINT_SCHEMA = fk.CONSTRAINT_SCHEMA"
                        + " AND rc.CONSTRAINT_NAME = fk.CONSTRAINT_NAME"
                        + " JOIN INFORMATION_SCHEMA.TABLE_CONSTRAINTS pk ON pk.CONSTRAINT_SCHEMA = rc.UNIQUE_CONSTRAINT_SCHEMA"
                        + " AND pk.CONSTRAINT_NAME = rc.UNIQUE_CONSTRAINT_NAME"
                        + " WHERE fk.TABLE_SCHEMA = ? AND fk.TABLE_NAME = ? AND pk.TABLE_SCHEMA = fk.TABLE_SCHEMA"
                        + " AND pk.TABLE_NAME = fk.TABLE_NAME) THEN 1 ELSE 0 END";
            case MARIADB:
                return "SELECT CASE WHEN COUNT(DISTINCT EVENT_MANIPULATION) = 2 THEN 1 ELSE 0 END"
                        + " FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ?"
                        + " AND ACTION_TIMING = 'BEFORE' AND ((EVENT_MANIPULATION = 'UPDATE' AND TRIGGER_NAME = ?)"
                        + " OR (EVENT_MANIPULATION = 'DELETE' AND TRIGGER_NAME = ?))";
            default:
                return null;
        }
    }

    /** The parameters of {@link #protectionCheck()}, in order; the table should be resolved (qualified). */
    public List<String> protectionParameters() {
        String schema = epochTable.storedSchema(dialect);
        String tableName = epochTable.storedTable(dialect);
        switch (dialect) {
            case POSTGRESQL:
                return List.of(table, PG_FUNCTION_BODY, guardFunction() + GUARD_SIGNATURE, guardBody());
            case H2:
                return List.of(schema, tableName, H2_TRIGGER_CLASS, schema, tableName);
            case MARIADB:
                return List.of(schema, tableName, mariaTrigger("upd", tableName), mariaTrigger("del", tableName));
            default:
                return List.of();
        }
    }
}
