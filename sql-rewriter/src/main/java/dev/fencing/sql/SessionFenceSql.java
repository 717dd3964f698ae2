package dev.fencing.sql;

import java.util.List;

/**
 * The SQL of the session fence on PostgreSQL ({@code fencing.guard=session}): the one place that knows how a
 * server session registers as the holder of a token, and how an epoch change ends the sessions registered for an
 * older token before its new mark can commit.
 *
 * <p>The protocol, all of it enforced by the database:
 * <ul>
 *   <li><b>Register</b> (the driver, in a transaction of its own on the session, nothing of the caller's in it):
 *       lock the epoch row ({@code FOR SHARE}) and read the mark; only when it equals the token, bump the
 *       resource's generation row and insert the session's row (its {@code pid} and {@code backend_start}, which
 *       name one server process for ever), then commit. From then on the session's statements go untouched.</li>
 *   <li><b>Hand over</b> (a trigger after every raise of a mark, whichever client or path raises it): bump the
 *       generation row, then end every live session registered for the resource at a lower token
 *       ({@code pg_terminate_backend}, waiting until it is gone, so its open transaction rolls back) and delete
 *       its row. The raise commits only after they are gone; if one cannot be ended the raise fails.</li>
 *   <li><b>Protect</b> (a trigger on the session table): a live session's row cannot be deleted, changed or
 *       truncated, a session can insert only its own row, and a session registered for a resource cannot raise
 *       that resource's mark (it would outlive its own registration): it must reconnect.</li>
 * </ul>
 * The generation row makes the protocol hold at every isolation level: an epoch change whose snapshot predates a
 * registration cannot see that row, but its bump of the generation row then fails with 40001 (the registration
 * changed it after the snapshot), so it fails closed instead of missing the session.
 */
public final class SessionFenceSql {
    /** What the session table's name adds to the epoch table's. */
    public static final String SUFFIX = "_session";
    /**
     * Sent first in a registration's transaction: it waits at most a second for the epoch row, then gives up (55P03)
     * and the statement guard, which honours the caller's timeout and cancel, serves the statement instead.
     */
    public static final String LOCK_WAIT = "SELECT pg_catalog.set_config('lock_timeout', '1000', true)";

    /**
     * Sent first in a registration's transaction, before anything that takes a snapshot: the registration runs at READ
     * COMMITTED whatever the session's default is ({@code default_transaction_isolation}, or pgjdbc's
     * {@code setTransactionIsolation}, which sets it for the session). At REPEATABLE READ or SERIALIZABLE, registrations
     * that took their snapshots before one of them bumped the generation row failed with 40001 on their own bump
     * (three of four BenchBase SmallBank connections, issue 22); at READ COMMITTED each waits for the row and bumps its
     * newest version. Safety does not rest on the registration's level: its mark is read under a {@code FOR SHARE}
     * lock (the newest committed version, after a raise holding the row ended), and a raise at any level either waits
     * for that lock and then sees the row, or fails on the generation row (see the class comment).
     */
    public static final String REGISTRATION_ISOLATION = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";

    /** How often a hand-over looks whether the old sessions it signalled are gone, in seconds. */
    static final String END_SESSION_POLL_S = "0.002";

    /** How long a hand-over waits for the old sessions to end before it fails, in milliseconds. */
    public static final int END_SESSION_TIMEOUT_MS = 10_000;

    private static final String PROTECT_FUNCTION = "fencing_protect_session";
    private static final String HANDOVER_FUNCTION = "fencing_protect_handover";
    private static final String PROTECT = "'" + EpochSql.MARK_PROTECTED_STATE + "'";

    /**
     * Whether the session a registration row names may still be alive: a server process with its pid whose start
     * is that of the row, or hidden (PostgreSQL shows another role's {@code backend_start} only to members of
     * {@code pg_read_all_stats}): a session that cannot be proved gone counts as alive. Read after
     * {@code pg_stat_clear_snapshot()}, since a transaction otherwise keeps its first view of the processes.
     */
    private static String alive(String row) {
        return "EXISTS (SELECT 1 FROM pg_stat_get_activity(" + row + ".pid) a WHERE a.pid = " + row + ".pid"
                + " AND (a.backend_start IS NULL OR a.backend_start = " + row + ".backend_start))";
    }

    /** The session table's protection; the epoch table is the session table's name without {@link #SUFFIX}. */
    static final String PROTECT_BODY = "\nDECLARE\n"
            + "  mark bigint;\n"
            + "  epoch_table text := format('%I.%I', TG_TABLE_SCHEMA, left(TG_TABLE_NAME, length(TG_TABLE_NAME) - "
            + SUFFIX.length() + "));\n"
            + "BEGIN\n"
            + "  IF TG_OP = 'TRUNCATE' THEN\n"
            + "    RAISE EXCEPTION 'fencing: %.% holds the sessions fenced for each resource and cannot be truncated',"
            + " TG_TABLE_SCHEMA, TG_TABLE_NAME USING ERRCODE = " + PROTECT + ";\n"
            + "  ELSIF TG_OP = 'INSERT' THEN\n"
            + "    IF NEW.pid = 0 OR (NEW.pid = pg_backend_pid() AND NEW.backend_start IS NOT DISTINCT FROM"
            + " (SELECT a.backend_start FROM pg_stat_get_activity(pg_backend_pid()) a)) THEN\n"
            + "      RETURN NEW;\n"
            + "    END IF;\n"
            + "    RAISE EXCEPTION 'fencing: a session can register only itself' USING ERRCODE = " + PROTECT + ";\n"
            + "  ELSIF TG_OP = 'UPDATE' THEN\n"
            + "    IF OLD.pid = 0 AND NEW.pid = 0 AND NEW.resource = OLD.resource"
            + " AND NEW.backend_start = OLD.backend_start THEN\n"
            + "      RETURN NEW;\n"
            + "    END IF;\n"
            + "    RAISE EXCEPTION 'fencing: the registration of a fenced session cannot change' USING ERRCODE = "
            + PROTECT + ";\n"
            + "  END IF;\n"
            + "  IF OLD.pid <> 0 THEN\n"
            + "    EXECUTE format('SELECT epoch FROM %s WHERE resource = $1', epoch_table) INTO mark USING OLD.resource;\n"
            + "    IF OLD.token < COALESCE(mark, 0) THEN\n"
            + "      RETURN OLD;\n"
            + "    END IF;\n"
            + "    PERFORM pg_stat_clear_snapshot();\n"
            + "    IF NOT " + alive("OLD") + " THEN\n"
            + "      RETURN OLD;\n"
            + "    END IF;\n"
            + "  END IF;\n"
            + "  RAISE EXCEPTION 'fencing: the registration of live session % for resource % cannot be deleted',"
            + " OLD.pid, OLD.resource USING ERRCODE = " + PROTECT + ";\n"
            + "END\n";

    /**
     * Ends the sessions registered below a raised mark; on the epoch table, after each insert or update. It signals
     * every old session first and then waits until none of them is alive ({@link #alive}, read fresh each time),
     * looking again every {@link #END_SESSION_POLL_S} s, for at most {@link #END_SESSION_TIMEOUT_MS} in all: ending
     * many costs about as long as the slowest of them takes to exit. (It waited with {@code pg_terminate_backend(pid,
     * timeout)} before, which looks every 100 ms: every hand-over took at least 100 ms, and 240-290 ms with 16
     * registered sessions on a loaded machine; issue 22 asks for under 200 ms.) A session is gone for the hand-over
     * when the server no longer lists it: a backend leaves the list only after its exit aborted its transaction.
     */
    static final String HANDOVER_BODY = "\nDECLARE\n"
            + "  s record;\n"
            + "  own_start timestamptz;\n"
            + "  session_table text := format('%I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME || '" + SUFFIX + "');\n"
            + "  old_sessions text;\n"
            + "  deadline timestamptz;\n"
            + "BEGIN\n"
            + "  IF TG_OP = 'UPDATE' AND NEW.epoch <= OLD.epoch THEN\n"
            + "    RETURN NULL;\n"
            + "  END IF;\n"
            + "  EXECUTE format('INSERT INTO %s AS g (resource, pid, backend_start, token)"
            + " VALUES ($1, 0, ''-infinity'', 1) ON CONFLICT (resource, pid, backend_start)"
            + " DO UPDATE SET token = g.token + 1', session_table) USING NEW.resource;\n"
            + "  old_sessions := format('SELECT pid, backend_start, token FROM %s WHERE resource = $1 AND pid <> 0"
            + " AND token < $2 ORDER BY pid', session_table);\n"
            + "  PERFORM pg_stat_clear_snapshot();\n"
            + "  SELECT a.backend_start INTO own_start FROM pg_stat_get_activity(pg_backend_pid()) a;\n"
            + "  FOR s IN EXECUTE old_sessions USING NEW.resource, NEW.epoch LOOP\n"
            + "    IF s.pid = pg_backend_pid() AND s.backend_start = own_start THEN\n"
            + "      RAISE EXCEPTION 'fencing: this session is fenced at token % for resource % and cannot raise its"
            + " mark to %: open a new connection for the new token', s.token, NEW.resource, NEW.epoch"
            + " USING ERRCODE = " + PROTECT + ";\n"
            + "    END IF;\n"
            + "    IF " + alive("s") + " THEN\n"
            + "      PERFORM pg_terminate_backend(s.pid);\n"
            + "    END IF;\n"
            + "  END LOOP;\n"
            + "  deadline := clock_timestamp() + interval '" + END_SESSION_TIMEOUT_MS + " milliseconds';\n"
            + "  FOR s IN EXECUTE old_sessions USING NEW.resource, NEW.epoch LOOP\n"
            + "    LOOP\n"
            + "      PERFORM pg_stat_clear_snapshot();\n"
            + "      EXIT WHEN NOT " + alive("s") + ";\n"
            + "      IF clock_timestamp() >= deadline THEN\n"
            + "        RAISE EXCEPTION 'fencing: session % still holds token % of resource % and did not end within"
            + " % ms; the mark stays below %', s.pid, s.token, NEW.resource, " + END_SESSION_TIMEOUT_MS + ", NEW.epoch"
            + " USING ERRCODE = '55P03';\n"
            + "      END IF;\n"
            + "      PERFORM pg_sleep(" + END_SESSION_POLL_S + ");\n"
            + "    END LOOP;\n"
            + "    EXECUTE format('DELETE FROM %s WHERE resource = $1 AND pid = $2 AND backend_start = $3',"
            + " session_table) USING NEW.resource, s.pid, s.backend_start;\n"
            + "  END LOOP;\n"
            + "  RETURN NULL;\n"
            + "END\n";

    private final EpochTable epochTable;
    private final EpochTable sessionTable;
    private final String epoch;
    private final String session;

    /** The longest name PostgreSQL keeps whole (it cuts longer identifiers). */
    public static final int MAX_NAME = 63;

    /**
     * The session table beside {@code epochTable} (its name and {@link #SUFFIX}, in the same schema), or
     * {@code null} when that name would be longer than PostgreSQL keeps: then there is no session fence for that
     * epoch table. The one rule for the name, used by everything that creates, protects or checks the table.
     */
    public static EpochTable sessionTableOf(EpochTable epochTable) {
        String name = epochTable.storedTable(Dialect.POSTGRESQL) + SUFFIX;
        if (name.length() > MAX_NAME) {
            return null;
        }
        String schema = epochTable.storedSchema(Dialect.POSTGRESQL);
        return schema == null ? EpochTable.of(name) : EpochTable.resolved(schema, name);
    }

    /**
     * The session fence beside {@code epochTable}, which should be resolved (qualified).
     *
     * @throws IllegalArgumentException when the session table's name would be longer than PostgreSQL allows
     */
    public SessionFenceSql(EpochTable epochTable) {
        this.epochTable = epochTable;
        this.sessionTable = sessionTableOf(epochTable);
        if (sessionTable == null) {
            throw new IllegalArgumentException("the session table '" + epochTable.storedTable(Dialect.POSTGRESQL)
                    + SUFFIX + "' would be longer than " + MAX_NAME + " characters: choose a shorter epoch table name");
        }
        this.epoch = epochTable.render(Dialect.POSTGRESQL);
        this.session = sessionTable.render(Dialect.POSTGRESQL);
    }

    /** The session table's name (as resolved when the epoch table was). */
    public EpochTable sessionTable() {
        return sessionTable;
    }

    /** The rendered, quoted epoch table name the session fence stands beside. */
    public String epochTable() {
        return epoch;
    }

    /** The rendered, quoted session table name. */
    public String table() {
        return session;
    }

    /**
     * Creates the session table, its protection and the epoch table's hand-over trigger; idempotent. The epoch
     * table must exist.
     */
    public List<String> create() {
        String prefix = epochTable.renderSchemaPrefix(Dialect.POSTGRESQL);
        String protect = prefix + Dialect.POSTGRESQL.quoteExact(PROTECT_FUNCTION);
        String handover = prefix + Dialect.POSTGRESQL.quoteExact(HANDOVER_FUNCTION);
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + session + " (resource VARCHAR(200) NOT NULL, pid INTEGER NOT NULL,"
                        + " backend_start TIMESTAMPTZ NOT NULL, token BIGINT NOT NULL,"
                        + " PRIMARY KEY (resource, pid, backend_start))",
                "CREATE OR REPLACE FUNCTION " + protect + "() RETURNS trigger LANGUAGE plpgsql"
                        + " SET search_path = pg_catalog AS $fencing$" + PROTECT_BODY + "$fencing$",
                "CREATE OR REPLACE FUNCTION " + handover + "() RETURNS trigger LANGUAGE plpgsql"
                        + " SET search_path = pg_catalog AS $fencing$" + HANDOVER_BODY + "$fencing$",
                "CREATE OR REPLACE TRIGGER " + Dialect.POSTGRESQL.quoteExact(PROTECT_FUNCTION)
                        + " BEFORE INSERT OR UPDATE OR DELETE ON " + session + " FOR EACH ROW EXECUTE FUNCTION "
                        + protect + "()",
                "CREATE OR REPLACE TRIGGER " + Dialect.POSTGRESQL.quoteExact(PROTECT_FUNCTION + "_truncate")
                        + " BEFORE TRUNCATE ON " + session + " FOR EACH STATEMENT EXECUTE FUNCTION " + protect + "()",
                "CREATE OR REPLACE TRIGGER " + Dialect.POSTGRESQL.quoteExact(HANDOVER_FUNCTION)
                        + " AFTER INSERT OR UPDATE ON " + epoch + " FOR EACH ROW EXECUTE FUNCTION " + handover + "()");
    }

    /**
     * One row whose first column is 1 when {@link #create()} is in force (the three triggers present, enabled, on
     * the right events, with the functions' bodies unchanged and their {@code search_path} pinned), 0 otherwise.
     * Parameters: the session table, the epoch table (qualified names), the protection body, the hand-over body.
     */
    public String check() {
        // tgtype bits: 1 row, 2 before, 4 insert, 8 delete, 16 update, 32 truncate
        return "SELECT CASE WHEN"
                + " EXISTS (" + trigger("t.tgrelid = CAST(? AS regclass) AND t.tgtype & 31 = 31", "?") + ")"
                + " AND EXISTS (" + trigger("t.tgrelid = CAST(? AS regclass) AND t.tgtype & 35 = 34", "?") + ")"
                + " AND EXISTS (" + trigger("t.tgrelid = CAST(? AS regclass) AND t.tgtype & 31 = 21", "?") + ")"
                + " THEN 1 ELSE 0 END";
    }

    private static String trigger(String condition, String body) {
        return "SELECT 1 FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid WHERE " + condition
                + " AND t.tgenabled IN ('O', 'A') AND t.tgqual IS NULL AND cardinality(CAST(t.tgattr AS int2[])) = 0"
                + " AND p.prosrc = " + body
                + " AND p.prolang = (SELECT oid FROM pg_catalog.pg_language WHERE lanname = 'plpgsql')"
                + " AND p.proconfig = ARRAY['search_path=pg_catalog']";
    }

    /** The parameters of {@link #check()}, in order. */
    public List<String> checkParameters() {
        return List.of(session, PROTECT_BODY, session, PROTECT_BODY, epoch, HANDOVER_BODY);
    }

    /** Registration step 1: locks the epoch row and reads the mark; parameter resource. No row: no mark yet. */
    public String lockMark() {
        return "SELECT epoch FROM " + epoch + " WHERE resource OPERATOR(pg_catalog.=) ? FOR SHARE";
    }

    /** Registration step 2: bumps the resource's generation row (see the class comment); parameter resource. */
    public String bumpGeneration() {
        return "INSERT INTO " + session + " AS g (resource, pid, backend_start, token) VALUES (?, 0, '-infinity', 1)"
                + " ON CONFLICT (resource, pid, backend_start) DO UPDATE SET token = g.token OPERATOR(pg_catalog.+) 1";
    }

    /** Registration step 3: the session's own row; parameters resource, token. */
    public String register() {
        return "INSERT INTO " + session + " (resource, pid, backend_start, token) SELECT ?, pg_catalog.pg_backend_pid(),"
                + " a.backend_start, ? FROM pg_catalog.pg_stat_get_activity(pg_catalog.pg_backend_pid()) a"
                + " ON CONFLICT (resource, pid, backend_start) DO NOTHING";
    }

    /**
     * Registration step 4: what the server now holds for this session: its pid and the token of its row (none when
     * the row is missing); parameter resource.
     */
    public String registered() {
        return "SELECT pg_catalog.pg_backend_pid(), (SELECT s.token FROM " + session + " s, "
                + "pg_catalog.pg_stat_get_activity(pg_catalog.pg_backend_pid()) a WHERE s.resource OPERATOR(pg_catalog.=) ?"
                + " AND s.pid OPERATOR(pg_catalog.=) a.pid AND s.backend_start OPERATOR(pg_catalog.=) a.backend_start)";
    }
}
