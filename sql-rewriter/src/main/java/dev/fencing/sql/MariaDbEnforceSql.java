package dev.fencing.sql;

import java.util.List;

/**
 * The SQL of enforcement on MariaDB ({@code fencing enforce}): row triggers on each protected table that make the
 * database itself refuse a change without a current token for the table's resource, whichever client sends it (the
 * {@code mariadb} client, another language's driver, the fencing driver). The PostgreSQL counterpart is
 * {@link EnforceSql}.
 *
 * <p>MariaDB has no statement-level triggers: each table gets three {@code BEFORE INSERT}, {@code BEFORE UPDATE} and
 * {@code BEFORE DELETE} {@code FOR EACH ROW} triggers, each one {@code CALL} of one procedure per epoch table (one code
 * path for every table), with the resource as its argument. The procedure admits the row change when
 * <ul>
 *   <li>the driver's record of its guard ({@link #GUARD_VARIABLE}: {@code ,resource token,} entries, written by the
 *       guard's own locking read for the statement it guards, {@link EpochSql#lockAtLeast()}) holds an entry for the
 *       table's resource, or else the session's user variables {@link #RESOURCE_VARIABLE} and {@link #TOKEN_VARIABLE}
 *       name the table's resource (compared byte for byte) and a token;</li>
 *   <li>and that token, read strictly (digits only, 1 to 2^63-1), is current: the guard's locking read,
 *       {@code epoch >= token ... LOCK IN SHARE MODE}, held to the end of the transaction so an epoch change waits for
 *       it, finds the mark equal to the token; otherwise a mark above it is {@code ZF002}, and a mark below it or
 *       none goes through the never-issued check (the lease row read {@code LOCK IN SHARE MODE}, {@code ZF003}), the
 *       advance ({@code UPDATE}, or {@code INSERT} of the first row) and the locking read again; a mark that moved
 *       meanwhile is {@code ZF002}. The reads name the epoch table under an alias of their own
 *       ({@link EpochSql#lockAtLeastOf}), so they take its row shared.</li>
 * </ul>
 * Without a valid token, a session the session fence ({@link MariaDbSessionFenceSql}) registered for the table's
 * resource is admitted (one primary-key probe of its row by connection id and server start); so is one whose claim is
 * stale; otherwise {@code ZF001}. Every value the client sets is a claim, re-checked against the locked mark: the
 * record gives no more than a token does.
 *
 * <p>A row change admitted (by a token or by a registration) also changes the connection's row in the writer table
 * ({@link #createSupport()}): XA PREPARE releases the epoch row's shared lock but keeps that exclusive one, and every
 * raise of the mark deletes the resource's writer rows first (a trigger on the epoch table), so it waits for a prepared
 * branch of the old mark as it waits for any open transaction of it.
 *
 * <p>The procedure runs with its definer's rights ({@code SQL SECURITY DEFINER}; a trigger always does), so clients
 * need no privilege on the fence's tables.
 */
public final class MariaDbEnforceSql {
    /** The user variables a client sets (what {@code fencing exec} passes to the {@code mariadb} client). */
    public static final String RESOURCE_VARIABLE = "@fencing_resource";
    public static final String TOKEN_VARIABLE = "@fencing_token";
    /**
     * The driver's record of what its guard checked for the statement it guards: {@code ,resource token,} per resource,
     * rewritten by the guard's first locking read of each statement. A client that sets it gains what
     * {@link #TOKEN_VARIABLE} gives it.
     */
    public static final String GUARD_VARIABLE = "@fencing_guard";
    /** The events of the three triggers, with the letter each trigger's name carries. */
    public static final List<String> EVENTS = List.of("INSERT", "UPDATE", "DELETE");

    /**
     * Where the procedure keeps the server's start ({@link MariaDbSessionFenceSql#BOOT}) once it has read it, for the
     * registration probe: reading it costs about 1.3 ms (measured on 10.11), once per session. A session that sets it to
     * another start gains nothing: a registration row names its own connection id, and every row left holds its
     * resource's current mark, so one of an earlier start admits no more than the current mark's token would.
     */
    public static final String BOOT_VARIABLE = "@fencing_boot";
    /** What the writer table's name adds to the epoch table's. */
    public static final String WRITER_SUFFIX = "_writer";

    private final EpochSql epoch;
    private final String epochTable;
    private final String leaseTable;
    private final String procedureSchema;
    private final String procedureName;
    private final String procedure;
    private final EpochTable sessionTable;
    private final String writerTable;
    private final String writerName;
    private final String raiseTrigger;
    private final String raiseTriggerName;
    private final String epochName;
    private final EpochTable epochTableName;

    /** Enforcement beside {@code epochTable} and {@code leaseTable}, both resolved (qualified). */
    public MariaDbEnforceSql(EpochTable epochTable, EpochTable leaseTable) {
        this.epoch = new EpochSql(Dialect.MARIADB, epochTable);
        this.epochTableName = epochTable;
        this.epochTable = epochTable.render(Dialect.MARIADB);
        this.leaseTable = leaseTable.render(Dialect.MARIADB);
        this.procedureSchema = epochTable.storedSchema(Dialect.MARIADB);
        this.procedureName = shortened(EnforceSql.NAME_PREFIX + "_" + epochTable.storedTable(Dialect.MARIADB));
        this.procedure = epochTable.renderSchemaPrefix(Dialect.MARIADB) + Dialect.MARIADB.quoteExact(procedureName);
        this.sessionTable = MariaDbSessionFenceSql.sessionTableOf(epochTable);
        this.epochName = epochTable.storedTable(Dialect.MARIADB);
        this.writerName = epochName + WRITER_SUFFIX;
        this.writerTable = epochTable.renderSchemaPrefix(Dialect.MARIADB) + Dialect.MARIADB.quoteExact(writerName);
        this.raiseTriggerName = shortened("fencing_protect_xa_" + epochName);
        this.raiseTrigger = epochTable.renderSchemaPrefix(Dialect.MARIADB) + Dialect.MARIADB.quoteExact(raiseTriggerName);
    }

    /** The procedure's schema and name, as {@code information_schema.ROUTINES} stores them. */
    public String procedureSchema() {
        return procedureSchema;
    }

    public String procedureName() {
        return procedureName;
    }

    /** The rendered epoch table. */
    public String epochTable() {
        return epochTable;
    }

    /** The rendered lease table. */
    public String leaseTable() {
        return leaseTable;
    }

    /** The procedure's body as {@code information_schema.ROUTINES.ROUTINE_DEFINITION} stores it. */
    public String body() {
        String session = requireSupport();
        String noToken = "CONCAT('fencing: no token for resource ''', name, ''' (table ', tbl, '): set "
                + RESOURCE_VARIABLE + " and " + TOKEN_VARIABLE + " in the session (fencing exec passes them to the"
                + " mariadb client), or write through the fencing driver; nothing was changed')";
        return "BEGIN\n"
                + "  DECLARE name VARCHAR(200) DEFAULT CAST(res AS CHAR);\n"
                + "  DECLARE k VARBINARY(210) DEFAULT CONCAT(',', res, ' ');\n"
                + "  DECLARE pos INT DEFAULT LOCATE(k, CAST(" + GUARD_VARIABLE + " AS BINARY));\n"
                + "  DECLARE claimed TEXT;\n"
                + "  DECLARE src VARCHAR(20);\n"
                + "  DECLARE tok BIGINT;\n"
                + "  DECLARE found_mark BIGINT;\n"
                + "  DECLARE issued_mark BIGINT;\n"
                + "  DECLARE registered BIGINT;\n"
                + "  DECLARE msg VARCHAR(512);\n"
                + "  IF pos > 0 THEN\n"
                + "    SET claimed = CAST(SUBSTRING_INDEX(SUBSTRING(CAST(" + GUARD_VARIABLE + " AS BINARY), pos + LENGTH(k)),"
                + " ',', 1) AS CHAR), src = '" + GUARD_VARIABLE + "';\n"
                + "  ELSEIF CAST(" + RESOURCE_VARIABLE + " AS BINARY) = res THEN\n"
                + "    SET claimed = CAST(" + TOKEN_VARIABLE + " AS CHAR), src = '" + TOKEN_VARIABLE + "';\n"
                + "  END IF;\n"
                // strict, as the driver reads a token (SPEC C1): no sign, point, exponent, space or newline
                + "  IF LENGTH(claimed) BETWEEN 1 AND 19 AND claimed NOT REGEXP '[^0-9]' THEN\n"
                + "    IF CAST(claimed AS DECIMAL(20,0)) BETWEEN 1 AND 9223372036854775807 THEN\n"
                + "      SET tok = CAST(claimed AS SIGNED);\n"
                + "    END IF;\n"
                + "  END IF;\n"
                + "  IF tok IS NULL THEN\n"
                // no valid token: a session the session fence registered for the resource is admitted, nothing else
                + registrationProbe(session, "    ")
                + "    IF registered IS NULL AND (claimed IS NULL OR claimed = '') THEN\n"
                + "      SET msg = " + noToken + ";\n"
                + "      SIGNAL SQLSTATE '" + EnforceSql.NO_TOKEN_STATE + "' SET MESSAGE_TEXT = msg;\n"
                + "    ELSEIF registered IS NULL THEN\n"
                + "      SET msg = CONCAT('fencing: invalid token ''', LEFT(claimed, 40), ''' from ', src, ' for resource ''',"
                + " name, ''': a token is a positive 64-bit integer; nothing was changed');\n"
                + "      SIGNAL SQLSTATE '" + EnforceSql.NO_TOKEN_STATE + "' SET MESSAGE_TEXT = msg;\n"
                + "    END IF;\n"
                + "  ELSE\n"
                // the driver's guard's own locking read, held to the end of the transaction: at the mark, done
                + "    SET found_mark = (" + epoch.lockAtLeastOf("res", "tok") + ");\n"
                + "    IF found_mark IS NULL OR found_mark <> tok THEN\n"
                // inside a data-changing statement InnoDB reads with a shared lock anyway, so the driver's read without
                // a lock before an advance (EpochSql#readMarkBeforeLocking) has no counterpart here: two clients that
                // advance at once may deadlock (one is rolled back, 1213), never write unchecked
                + "      SET found_mark = (" + epoch.readMarkOf("res") + ");\n"
                + "      IF found_mark > tok THEN\n"
                // a stale claim (a record left from an earlier token) does not refuse a session registered now
                + registrationProbe(session, "        ")
                + "        IF registered IS NULL THEN\n"
                + staleSignal("          ")
                + "        END IF;\n"
                + "      ELSE\n"
                + "        SET issued_mark = (SELECT issued FROM " + leaseTable + " WHERE resource = res LIMIT 1"
                + " LOCK IN SHARE MODE);\n"
                + "        IF issued_mark IS NOT NULL AND tok > issued_mark THEN\n"
                + "          SET msg = CONCAT('fencing: token ', tok, ' for resource ''', name, ''' was never issued: the"
                + " issuer has handed out tokens up to ', issued_mark, '; nothing was changed');\n"
                + "          SIGNAL SQLSTATE '" + EnforceSql.NOT_ISSUED_STATE + "' SET MESSAGE_TEXT = msg;\n"
                + "        END IF;\n"
                + "        IF found_mark IS NULL THEN\n"
                + "          INSERT INTO " + epochTable + " (resource, epoch) VALUES (res, tok) ON DUPLICATE KEY UPDATE"
                + " epoch = IF(epoch <= VALUES(epoch), VALUES(epoch), epoch);\n"
                + "        ELSE\n"
                + "          UPDATE " + epochTable + " SET epoch = tok WHERE resource = res AND epoch <= tok;\n"
                + "        END IF;\n"
                + "        SET found_mark = (" + epoch.lockAtLeastOf("res", "tok") + ");\n"
                + "        IF found_mark IS NULL OR found_mark <> tok THEN\n"
                + "          SET found_mark = (" + epoch.readMarkOf("res") + ");\n"
                + staleSignal("          ")
                + "        END IF;\n"
                + "      END IF;\n"
                + "    END IF;\n"
                + "  END IF;\n"
                // admitted (by its token or its registration): this connection's writer row, changed, so its exclusive
                // lock outlives XA PREPARE (which releases the epoch row's shared lock; the hand-over ends a registered
                // session, not a branch it prepared) and a restart; every raise waits for it
                + "  INSERT INTO " + writerTable + " (resource, conn_id, n) VALUES (res, CONNECTION_ID(), 1)"
                + " ON DUPLICATE KEY UPDATE n = n + 1;\n"
                + "END";
    }

    /**
     * Sets {@code registered} to the token of this session's registration by the session fence for the resource
     * (connection id and server start, as {@link MariaDbSessionFenceSql} names a session), or leaves it null: one
     * primary-key probe, under an alias of its own so it reads the row shared. Every row of a live session holds its
     * resource's current mark: a row is inserted only at the mark, and a raise ends the sessions registered below it
     * and deletes their rows before it commits (the session fence's hand-over trigger), so no lock on the epoch row is
     * needed, and none is taken: the hand-over ends such a session rather than wait for its transaction.
     */
    private static String registrationProbe(String session, String indent) {
        return indent + "IF " + BOOT_VARIABLE + " IS NULL THEN\n"
                + indent + "  SET " + BOOT_VARIABLE + " = " + MariaDbSessionFenceSql.BOOT + ";\n"
                + indent + "END IF;\n"
                + indent + "SET registered = (SELECT fencing_reg.token FROM " + session + " AS fencing_reg"
                + " WHERE fencing_reg.resource = res AND fencing_reg.conn_id = CONNECTION_ID() AND fencing_reg.boot = "
                + BOOT_VARIABLE + " LIMIT 1);\n";
    }

    /** The session table, rendered; the procedure needs it (throws when a name it needs would be too long). */
    private String requireSupport() {
        if (sessionTable == null || writerName.length() > MariaDbSessionFenceSql.MAX_NAME) {
            throw new IllegalArgumentException("the epoch table name '" + epochName + "' is too long for enforcement:"
                    + " the tables '" + epochName + MariaDbSessionFenceSql.SUFFIX + "' and '" + writerName + "' must fit"
                    + " in " + MariaDbSessionFenceSql.MAX_NAME + " characters");
        }
        return sessionTable.render(Dialect.MARIADB);
    }

    /** The session fence's table beside the epoch table, which the procedure probes for registrations. */
    public EpochTable sessionTable() {
        requireSupport();
        return sessionTable;
    }

    /**
     * What the procedure needs beside the epoch table (besides the session fence's table), created before it;
     * idempotent: the writer table (a row per resource and connection that wrote since the resource's
     * last raise, changed by every row change the procedure admits (by a token or a registration), so the transaction holds it exclusively
     * to its end, through {@code XA PREPARE} and a restart of the server) and the epoch table's trigger that makes
     * every raise of a mark delete the resource's writer rows first: the raise waits for every transaction that still
     * holds one, a prepared XA branch of the old mark included.
     */
    public List<String> createSupport() {
        requireSupport();
        return List.of("CREATE TABLE IF NOT EXISTS " + writerTable + " (resource VARBINARY(200) NOT NULL,"
                        + " conn_id BIGINT UNSIGNED NOT NULL, n BIGINT UNSIGNED NOT NULL,"
                        + " PRIMARY KEY (resource, conn_id)) ENGINE=InnoDB",
                "CREATE OR REPLACE TRIGGER " + raiseTrigger + " BEFORE UPDATE ON " + epochTable + " FOR EACH ROW "
                        + raiseTriggerBody());
    }

    private String raiseTriggerBody() {
        return "BEGIN IF NEW.epoch > OLD.epoch THEN DELETE FROM " + writerTable + " WHERE resource = NEW.resource;"
                + " END IF; END";
    }

    /**
     * One row whose first column is 1 when {@link #createSupport()} is in force: the raise trigger on the epoch table
     * with exactly its body, the writer table in InnoDB, and no trigger on the writer table nor on the session table
     * but the session fence's own: a trigger of anyone else's could change the resource of the row the procedure
     * writes (so a raise's {@code DELETE} would not meet it) or of a registration. Parameters:
     * {@link #supportCheckParameters()}.
     */
    public static String supportCheck() {
        return "SELECT CASE WHEN EXISTS (SELECT 1 FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?"
                + " AND TRIGGER_NAME = ? AND EVENT_OBJECT_TABLE = ? AND ACTION_TIMING = 'BEFORE'"
                + " AND EVENT_MANIPULATION = 'UPDATE' AND ACTION_ORIENTATION = 'ROW' AND ACTION_STATEMENT = ?)"
                + " AND EXISTS (SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " AND ENGINE = 'InnoDB')"
                + " AND NOT EXISTS (SELECT 1 FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ?"
                + " AND (EVENT_OBJECT_TABLE = ? OR (EVENT_OBJECT_TABLE = ? AND TRIGGER_NAME NOT IN (?, ?, ?))))"
                + " THEN 1 ELSE 0 END";
    }

    /** The parameters of {@link #supportCheck()}, in order. */
    public List<String> supportCheckParameters() {
        List<String> own = new MariaDbSessionFenceSql(epochTableName).triggerNames();
        return List.of(procedureSchema, raiseTriggerName, epochName, raiseTriggerBody(), procedureSchema, writerName,
                procedureSchema, writerName, sessionTable().storedTable(Dialect.MARIADB), own.get(1), own.get(2),
                own.get(3));
    }

    /** The rendered writer table. */
    public String writerTable() {
        return writerTable;
    }

    private static String staleSignal(String indent) {
        return indent + "SET msg = CONCAT('fencing: stale token ', tok, ' for resource ''', name, ''': the resource has"
                + " accepted token ', found_mark, '; nothing was changed');\n"
                + indent + "SIGNAL SQLSTATE '" + EnforceSql.STALE_STATE + "' SET MESSAGE_TEXT = msg;\n";
    }

    /** Creates (or replaces) the procedure; idempotent. */
    public String createProcedure() {
        return "CREATE OR REPLACE PROCEDURE " + procedure + "(res VARBINARY(200), tbl VARCHAR(200)) MODIFIES SQL DATA"
                + " SQL SECURITY DEFINER " + body();
    }

    /**
     * The three triggers that put {@code schema.table} under enforcement for {@code resource}; idempotent ({@code CREATE
     * OR REPLACE TRIGGER} replaces each under the table's metadata lock, so no change slips between).
     *
     * @throws IllegalArgumentException when the resource is not a valid name, or the schema or table name holds a
     *                                  quote or backslash (it is written into the trigger as a string for messages)
     */
    public List<String> install(String schema, String table, String resource) {
        ResourceName.require(resource);
        String call = triggerStatement(schema, table, resource);
        String target = Dialect.MARIADB.quoteExact(schema) + "." + Dialect.MARIADB.quoteExact(table);
        return EVENTS.stream().map(event -> "CREATE OR REPLACE TRIGGER " + Dialect.MARIADB.quoteExact(schema) + "."
                + Dialect.MARIADB.quoteExact(triggerName(event, table)) + " BEFORE " + event + " ON " + target
                + " FOR EACH ROW " + call).toList();
    }

    /** Takes {@code schema.table} out of enforcement. */
    public List<String> remove(String schema, String table) {
        return EVENTS.stream().map(event -> "DROP TRIGGER IF EXISTS " + Dialect.MARIADB.quoteExact(schema) + "."
                + Dialect.MARIADB.quoteExact(triggerName(event, table))).toList();
    }

    /**
     * Each trigger's statement, as {@code information_schema.TRIGGERS.ACTION_STATEMENT} stores it: the one code path
     * with the resource and, for messages, the table.
     */
    public String triggerStatement(String schema, String table, String resource) {
        for (String name : List.of(schema, table)) {
            if (name.indexOf('\'') >= 0 || name.indexOf('\\') >= 0) {
                throw new IllegalArgumentException("table " + schema + "." + table + ": a schema or table name with a"
                        + " quote or backslash cannot be enforced");
            }
        }
        return triggerStatementPrefix() + resource + "', '" + schema + "." + table + "')";
    }

    /** What every trigger statement of this procedure starts with, up to its resource. */
    public String triggerStatementPrefix() {
        return "CALL " + procedure + "('";
    }

    /** The resource a trigger statement of this procedure names, or {@code null} when it is not one. */
    public String resourceOf(String actionStatement) {
        String start = triggerStatementPrefix();
        if (actionStatement == null || !actionStatement.startsWith(start)) {
            return null;
        }
        int end = actionStatement.indexOf('\'', start.length());
        return end < 0 ? null : actionStatement.substring(start.length(), end);
    }

    /**
     * A trigger's name: {@code fencing_enforce_} and the event's letter and the table, cut to MariaDB's 64 characters
     * with a hash of the whole name (trigger names are per schema, so the table is in it).
     */
    public static String triggerName(String event, String table) {
        return shortened(EnforceSql.NAME_PREFIX + "_" + Character.toLowerCase(event.charAt(0)) + "_" + table);
    }

    private static String shortened(String name) {
        if (name.length() <= 64) {
            return name;
        }
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return name.substring(0, 55) + String.format("_%08x", crc.getValue());
    }

    /**
     * The table a name denotes ({@code table} in the session's database, or {@code schema.table}): one row (schema,
     * table, table type, engine); none when there is no such table. Parameters: the schema or null, the table.
     */
    public static String resolveTable() {
        return "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE FROM information_schema.TABLES"
                + " WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? LIMIT 1";
    }

    /**
     * Every trigger whose name says it is enforcement's: schema, table, trigger name, event, timing, orientation,
     * statement. No parameters.
     */
    public static String listTriggers() {
        return "SELECT EVENT_OBJECT_SCHEMA, EVENT_OBJECT_TABLE, TRIGGER_NAME, EVENT_MANIPULATION, ACTION_TIMING,"
                + " ACTION_ORIENTATION, ACTION_STATEMENT FROM information_schema.TRIGGERS WHERE TRIGGER_NAME LIKE"
                + " 'fencing\\_enforce\\_%' ORDER BY 1, 2, 3 LIMIT 18446744073709551615";
    }

    /** The procedure's stored body and security type; parameters {@link #procedureSchema()}, {@link #procedureName()}. */
    public static String readProcedure() {
        return "SELECT ROUTINE_DEFINITION, SECURITY_TYPE FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?"
                + " AND ROUTINE_NAME = ? AND ROUTINE_TYPE = 'PROCEDURE' LIMIT 1";
    }

    /**
     * The foreign keys whose actions change {@code schema.table} as their child ({@code CASCADE}, {@code SET NULL},
     * {@code SET DEFAULT}): InnoDB runs them without firing the child's triggers. One row each: constraint, parent
     * schema, parent table, update rule, delete rule. Parameters: schema, table.
     */
    public static String cascadesInto() {
        return "SELECT CONSTRAINT_NAME, UNIQUE_CONSTRAINT_SCHEMA, REFERENCED_TABLE_NAME, UPDATE_RULE, DELETE_RULE"
                + " FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?"
                + " AND (UPDATE_RULE NOT IN ('RESTRICT', 'NO ACTION') OR DELETE_RULE NOT IN ('RESTRICT', 'NO ACTION'))"
                + " ORDER BY 1 LIMIT 18446744073709551615";
    }

    /**
     * The foreign keys whose actions change a child when {@code schema.table} changes as their parent (the other side
     * of {@link #cascadesInto()}): one row each: constraint, child schema, child table, update rule, delete rule.
     * Parameters: schema, table.
     */
    public static String cascadesFrom() {
        return "SELECT CONSTRAINT_NAME, CONSTRAINT_SCHEMA, TABLE_NAME, UPDATE_RULE, DELETE_RULE"
                + " FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE UNIQUE_CONSTRAINT_SCHEMA = ?"
                + " AND REFERENCED_TABLE_NAME = ?"
                + " AND (UPDATE_RULE NOT IN ('RESTRICT', 'NO ACTION') OR DELETE_RULE NOT IN ('RESTRICT', 'NO ACTION'))"
                + " ORDER BY 1 LIMIT 18446744073709551615";
    }

    /**
     * The accounts and roles that hold, directly, a privilege that gets around enforcement of {@code schema.table}:
     * one row per grantee and privilege (grantee, privilege, level). Global privileges: {@code SUPER} (any definer,
     * {@code SET GLOBAL}), {@code BINLOG REPLAY} (the {@code BINLOG} statement applies row events without triggers);
     * at any level: {@code TRIGGER}, {@code DROP} ({@code TRUNCATE}, which fires no trigger, or drop and re-create),
     * {@code ALTER} (another engine, {@code DISCARD}/{@code IMPORT TABLESPACE}, {@code EXCHANGE PARTITION}) on the
     * table, and {@code INSERT}, {@code UPDATE}, {@code DELETE}, {@code DROP}, {@code ALTER}, {@code TRIGGER} on the
     * epoch, lease, session or writer table, at table or column level too (raising a mark by hand, past the
     * never-issued check; forging a registration; moving or dropping a writer row, or a trigger that does, so a raise
     * does not wait for a prepared branch); {@code ALTER ROUTINE} and {@code CREATE ROUTINE} on the fence's schema
     * (replacing the procedure). Parameters: the table's schema, the fence's schema, the table's schema, the table,
     * then the epoch, lease, session and writer tables (rendered) twice.
     */
    public static String bypassingGrantees() {
        String onTable = "('TRIGGER', 'DROP', 'ALTER')";
        String onFence = "('INSERT', 'UPDATE', 'DELETE', 'DROP', 'ALTER', 'TRIGGER')";
        return "SELECT GRANTEE, PRIVILEGE_TYPE, 'global' FROM information_schema.USER_PRIVILEGES"
                + " WHERE PRIVILEGE_TYPE IN ('SUPER', 'BINLOG REPLAY', 'TRIGGER', 'DROP', 'ALTER', 'INSERT', 'UPDATE',"
                + " 'DELETE', 'ALTER ROUTINE', 'CREATE ROUTINE')"
                + " UNION ALL SELECT GRANTEE, PRIVILEGE_TYPE, TABLE_SCHEMA FROM information_schema.SCHEMA_PRIVILEGES"
                + " WHERE (TABLE_SCHEMA = ? AND PRIVILEGE_TYPE IN " + onTable + ")"
                + " OR (TABLE_SCHEMA = ? AND PRIVILEGE_TYPE IN ('INSERT', 'UPDATE', 'DELETE', 'DROP', 'ALTER', 'TRIGGER',"
                + " 'ALTER ROUTINE', 'CREATE ROUTINE'))"
                + " UNION ALL SELECT GRANTEE, PRIVILEGE_TYPE, CONCAT(TABLE_SCHEMA, '.', TABLE_NAME)"
                + " FROM information_schema.TABLE_PRIVILEGES WHERE (TABLE_SCHEMA = ? AND TABLE_NAME = ? AND PRIVILEGE_TYPE IN "
                + onTable + ") OR (CONCAT('`', TABLE_SCHEMA, '`.`', TABLE_NAME, '`') IN (?, ?, ?, ?) AND PRIVILEGE_TYPE IN "
                + onFence + ")"
                + " UNION ALL SELECT DISTINCT GRANTEE, PRIVILEGE_TYPE, CONCAT(TABLE_SCHEMA, '.', TABLE_NAME)"
                + " FROM information_schema.COLUMN_PRIVILEGES WHERE CONCAT('`', TABLE_SCHEMA, '`.`', TABLE_NAME, '`')"
                + " IN (?, ?, ?, ?) AND PRIVILEGE_TYPE IN " + onFence + " ORDER BY 1, 2 LIMIT 18446744073709551615";
    }
}
