package dev.fencing.sql;

import java.util.List;

/**
 * The SQL of enforcement on PostgreSQL ({@code fencing enforce}): a statement-level trigger on each protected table
 * that makes the database itself refuse a change without a current token for the table's resource, whichever client
 * sends it (psql, another language's driver, the fencing driver).
 *
 * <p>One trigger per table, {@code BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ... FOR EACH STATEMENT} (one check
 * per statement, not per row), the resource its argument. Its function, one per epoch table, admits the statement
 * when
 * <ul>
 *   <li>the session's custom settings {@code fencing.resource} and {@code fencing.token} (or the driver's record of
 *       its guard, {@code fencing.guard_record}: {@code ,resource token,} per resource it checked) name the table's
 *       resource and
 *       a current token: a token equal to the mark is checked, a higher one is checked against the issued mark
 *       (never issued: {@code ZF003}) and advances the mark, exactly as the driver's guard does; then the guard
 *       function's own locking read (one text, {@code EpochSql#guardLockingRead}) locks the epoch row
 *       {@code FOR SHARE} in the writing transaction, so an epoch change waits for it. (Calling the guard function
 *       itself would answer a refusal under contention with its own state, {@code ZFG01}, and catching that costs
 *       a subtransaction per statement.) A client sets them with
 *       {@code PGOPTIONS='-c fencing.resource=R -c fencing.token=N'} (what {@code fencing exec} exports) or
 *       {@code SET}; the driver's statement guard records its own for its transaction in the same statement as its
 *       guard.
 *       A forged setting gains nothing: the token is checked against the mark like any other;</li>
 *   <li>or, without such settings, the session is registered by the session fence at the resource's current mark
 *       (one indexed probe): the hand-over ends it before any newer mark can commit.</li>
 * </ul>
 * Otherwise it raises the fence's own SQLStates: {@code ZF001} (no or invalid token), {@code ZF002} (stale),
 * {@code ZF003} (never issued). The function is {@code SECURITY DEFINER}, owned by whoever runs {@code fencing
 * enforce}, with its {@code search_path} pinned to {@code pg_catalog} and every name qualified: clients need no
 * privilege on the fence's tables, and must have none that writes them.
 */
public final class EnforceSql {
    /**
     * The start of the name of the trigger and of its function (lower-case): DDL naming it through the driver is a
     * write to the epoch table ({@link EpochSql#PROTECTION_NAMES}).
     */
    public static final String NAME_PREFIX = "fencing_enforce";
    /** The trigger's name on each enforced table. */
    public static final String TRIGGER = NAME_PREFIX;
    /** The custom settings a client sets; the driver's statement guard sets them for its transaction. */
    public static final String RESOURCE_SETTING = "fencing.resource";
    public static final String TOKEN_SETTING = "fencing.token";
    /**
     * The transaction-local setting in which the driver's statement guard records the resources and tokens it checked:
     * {@code ,resource token,} per resource (resource names hold no comma or space), so a statement of several
     * resources records each. A name of its own: the driver reads a server-side {@code fencing.token} as the caller's
     * {@code SET LOCAL} token, which a guard's record must never become. A client that sets it gains what
     * {@link #TOKEN_SETTING} gives.
     */
    public static final String GUARD_RECORD_SETTING = "fencing.guard_record";
    /**
     * Where the trigger keeps the session's start (exact epoch seconds) once it has read it, for the registration
     * probe. A session that sets it to another session's start gains nothing: a registration row needs its own pid,
     * and a registration at the current mark admits no more than the current mark's token would.
     */
    public static final String SESSION_START_SETTING = "fencing.backend_start";
    /** The fence's SQLStates, as the driver's {@code FencingSqlState} (FencingSqlStateTest checks they agree). */
    public static final String NO_TOKEN_STATE = "ZF001";
    public static final String STALE_STATE = "ZF002";
    public static final String NOT_ISSUED_STATE = "ZF003";

    private final EpochSql epoch;
    private final String epochTable;
    private final String leaseTable;
    private final String sessionTable;
    private final String function;

    /**
     * Enforcement beside {@code epochTable} and {@code leaseTable}, both resolved (qualified).
     *
     * @throws IllegalArgumentException when the session table's name would be longer than PostgreSQL allows
     */
    public EnforceSql(EpochTable epochTable, EpochTable leaseTable) {
        this.epoch = new EpochSql(Dialect.POSTGRESQL, epochTable);
        this.epochTable = epochTable.render(Dialect.POSTGRESQL);
        this.leaseTable = leaseTable.render(Dialect.POSTGRESQL);
        this.sessionTable = new SessionFenceSql(epochTable).table();
        this.function = epoch.besideTable(NAME_PREFIX + "_");
    }

    /** The trigger function's qualified, quoted name. */
    public String function() {
        return function;
    }

    /** The trigger function as {@code regprocedure} reads it ({@code to_regprocedure}). */
    public String functionSignature() {
        return function + "()";
    }

    /** The body of the trigger function; {@link #listEnforced()} compares the stored body with it. */
    public String body() {
        return "\nDECLARE\n"
                + "  res text := TG_ARGV[0];\n"
                + "  record_so_far text := current_setting('" + GUARD_RECORD_SETTING + "', true);\n"
                + "  entry int := position((',' || res || ' ') IN coalesce(record_so_far, ''));\n"
                + "  claimed text;\n"
                + "  source text;\n"
                + "  own_start text;\n"
                + "  tok bigint;\n"
                + "  found_mark bigint;\n"
                + "  issued_mark bigint;\n"
                + "  raised bigint;\n"
                + "BEGIN\n"
                + "  IF entry > 0 THEN\n"
                + "    claimed := split_part(substr(record_so_far, entry + length(res) + 2), ',', 1);\n"
                + "    source := '" + GUARD_RECORD_SETTING + "';\n"
                + "  ELSIF current_setting('" + RESOURCE_SETTING + "', true) = res THEN\n"
                + "    claimed := btrim(current_setting('" + TOKEN_SETTING + "', true));\n"
                + "    source := '" + TOKEN_SETTING + "';\n"
                + "  END IF;\n"
                + "  IF claimed IS NULL OR claimed = '' THEN\n"
                // the session fence's registration at the current mark: the hand-over ends the session first. The
                // session's start is read once per session (pg_stat_get_activity copies every backend's status:
                // about 0.5 ms a call measured) and kept in a session setting, as exact epoch seconds.
                + "    own_start := current_setting('" + SESSION_START_SETTING + "', true);\n"
                + "    IF own_start IS NULL OR own_start = '' THEN\n"
                + "      SELECT CAST(extract(epoch FROM a.backend_start) AS text) INTO own_start"
                + " FROM pg_stat_get_activity(pg_backend_pid()) a;\n"
                + "      PERFORM set_config('" + SESSION_START_SETTING + "', own_start, false);\n"
                + "    END IF;\n"
                + "    IF EXISTS (SELECT 1 FROM " + sessionTable + " s JOIN " + epochTable + " e ON e.resource = s.resource"
                + " AND e.epoch = s.token WHERE s.resource = res AND s.pid = pg_backend_pid()"
                + " AND extract(epoch FROM s.backend_start) = CAST(own_start AS numeric)) THEN\n"
                + "      RETURN NULL;\n"
                + "    END IF;\n"
                + "    RAISE EXCEPTION 'fencing: no token for resource ''%'' (table %.%): set " + RESOURCE_SETTING
                + " and " + TOKEN_SETTING + " for the session (fencing exec puts them in PGOPTIONS), or write through"
                + " the fencing driver; nothing was changed', res, TG_TABLE_SCHEMA, TG_TABLE_NAME"
                + " USING ERRCODE = '" + NO_TOKEN_STATE + "';\n"
                + "  END IF;\n"
                // strict, as the driver reads a token (SPEC C1); nested so that no cast runs on a refused text
                + "  IF claimed ~ '^[0-9]{1,19}$' THEN\n"
                + "    IF CAST(claimed AS numeric) BETWEEN 1 AND 9223372036854775807 THEN\n"
                + "      tok := CAST(claimed AS bigint);\n"
                + "    END IF;\n"
                + "  END IF;\n"
                + "  IF tok IS NULL THEN\n"
                + "    RAISE EXCEPTION 'fencing: invalid token ''%'' from % for resource ''%'': a token"
                + " is a positive 64-bit integer; nothing was changed', claimed, source, res USING ERRCODE = '"
                + NO_TOKEN_STATE + "';\n"
                + "  END IF;\n"
                // an unlocked read only chooses the path; the guard function's lock decides
                + "  SELECT epoch INTO found_mark FROM " + epochTable + " WHERE resource = res;\n"
                + "  IF found_mark > tok THEN\n"
                + staleRaise()
                + "  ELSIF found_mark IS NULL OR found_mark < tok THEN\n"
                // the driver's never-issued check, then its advance (bounded wait, queued on the advisory lock)
                + "    SELECT issued INTO issued_mark FROM " + leaseTable + " WHERE resource = res FOR SHARE;\n"
                + "    IF issued_mark IS NOT NULL AND tok > issued_mark THEN\n"
                + "      RAISE EXCEPTION 'fencing: token % for resource ''%'' was never issued: the issuer has handed"
                + " out tokens up to %; nothing was changed', tok, res, issued_mark USING ERRCODE = '"
                + NOT_ISSUED_STATE + "';\n"
                + "    END IF;\n"
                + "    PERFORM set_config('lock_timeout', CASE WHEN current_setting('lock_timeout') = '0' THEN '"
                + EpochSql.ADVANCE_LOCK_TIMEOUT_MS + "' ELSE current_setting('lock_timeout') END, true);\n"
                + "    PERFORM pg_advisory_xact_lock(" + EpochSql.ADVISORY_CLASS + ", hashtext(res));\n"
                + "    INSERT INTO " + epochTable + " AS e (resource, epoch) VALUES (res, tok) ON CONFLICT (resource)"
                + " DO UPDATE SET epoch = EXCLUDED.epoch WHERE e.epoch <= EXCLUDED.epoch;\n"
                + "    GET DIAGNOSTICS raised = ROW_COUNT;\n"
                + "    IF raised = 0 THEN\n"
                + "      SELECT epoch INTO found_mark FROM " + epochTable + " WHERE resource = res;\n"
                + staleRaise()
                + "    END IF;\n"
                + "  END IF;\n"
                // the guard function's own locking read, with the fence's states for its verdicts
                + "  " + epoch.guardLockingRead("res", "tok") + "\n"
                + "  IF found_mark IS DISTINCT FROM tok THEN\n"
                + "    SELECT epoch INTO found_mark FROM " + epochTable + " WHERE resource = res;\n"
                + staleRaise()
                + "  END IF;\n"
                + "  RETURN NULL;\n"
                + "END\n";
    }

    private static String staleRaise() {
        return "    RAISE EXCEPTION 'fencing: stale token % for resource ''%'': the resource has accepted token %; nothing"
                + " was changed', tok, res, found_mark USING ERRCODE = '" + STALE_STATE + "';\n";
    }

    /**
     * Creates (or replaces) the trigger function; idempotent. Nobody but its owner may call it directly (a trigger
     * needs no {@code EXECUTE} privilege to fire it).
     */
    public List<String> createFunction() {
        return List.of(
                "CREATE OR REPLACE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER"
                        + " SET search_path = pg_catalog AS $fencing$" + body() + "$fencing$",
                "REVOKE ALL ON FUNCTION " + function + "() FROM PUBLIC");
    }

    /**
     * Puts {@code table} (rendered, quoted) under enforcement for {@code resource}; idempotent.
     *
     * @throws IllegalArgumentException when {@code resource} is not a valid resource name
     */
    public String install(String table, String resource) {
        StringBuilder argument = new StringBuilder();
        GuardedSql.appendStringLiteral(argument, resource);
        return "CREATE OR REPLACE TRIGGER " + TRIGGER + " BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON " + table
                + " FOR EACH STATEMENT EXECUTE FUNCTION " + function + "(" + argument + ")";
    }

    /** Takes {@code table} (rendered, quoted) out of enforcement. */
    public String remove(String table) {
        return "DROP TRIGGER IF EXISTS " + TRIGGER + " ON " + table;
    }

    /**
     * The table a name denotes, resolved with the session's {@code search_path}: one row (oid, qualified name, kind,
     * the resource of its enforcement trigger or null); no row when there is no such table. Parameter: the name.
     */
    public static String resolveTable() {
        return "SELECT c.oid, CAST(CAST(c.oid AS regclass) AS text), c.relkind, (SELECT " + triggerResource("t")
                + " FROM pg_catalog.pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = '" + TRIGGER + "')"
                + " FROM pg_catalog.pg_class c WHERE c.oid = pg_catalog.to_regclass(?)";
    }

    private static String triggerResource(String t) {
        return "pg_catalog.convert_from(pg_catalog.substring(" + t + ".tgargs, 1, pg_catalog.position(" + t
                + ".tgargs, CAST('\\x00' AS bytea)) - 1), 'UTF8')";
    }

    /**
     * Every table under this epoch table's enforcement: qualified name, resource, and whether the enforcement is in
     * force (trigger enabled, on the right events, once per statement, its function's body, {@code SECURITY DEFINER}
     * and pinned {@code search_path} unchanged). Parameters: the function's signature, the body.
     */
    public static String listEnforced() {
        // tgtype bits: 1 row, 2 before, 4 insert, 8 delete, 16 update, 32 truncate
        return "SELECT CAST(CAST(t.tgrelid AS regclass) AS text), " + triggerResource("t") + ","
                + " t.tgenabled IN ('O', 'A') AND t.tgtype & 63 = 62 AND t.tgqual IS NULL"
                + " AND p.prosrc = ? AND p.prosecdef AND p.proconfig = ARRAY['search_path=pg_catalog'], t.tgenabled"
                + " FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid"
                + " WHERE t.tgname = '" + TRIGGER + "' AND t.tgfoid = pg_catalog.to_regprocedure(?)"
                + " ORDER BY 1";
    }

    /**
     * The login roles that may change {@code table} and what lets each one bypass its enforcement, one row per role
     * (name, then a boolean per way): superuser (also {@code session_replication_role = replica}), owns the table or
     * is a member of its owner (may disable or drop the trigger), may {@code SET session_replication_role}, owns the
     * trigger function or the guard function (may replace its body), may create objects in the fence's schema, may
     * write the epoch or lease table directly (raise a mark past the never-issued check), holds {@code TRIGGER} on
     * the table (may add triggers that run first). Parameters: the epoch table, the lease table, the table, the
     * trigger function's signature, the guard function's signature. {@code canSetParameter} says whether the server
     * knows {@code has_parameter_privilege} (PostgreSQL 15 and later).
     */
    public static String bypassingRoles(boolean canSetParameter) {
        String write = "'INSERT, UPDATE, DELETE, TRUNCATE'";
        return "SELECT r.rolname, r.rolsuper, pg_catalog.pg_has_role(r.oid, c.relowner, 'MEMBER'),"
                + (canSetParameter ? " pg_catalog.has_parameter_privilege(r.oid, 'session_replication_role', 'SET')"
                : " r.rolsuper")
                + ", pg_catalog.pg_has_role(r.oid, f.proowner, 'MEMBER') OR pg_catalog.pg_has_role(r.oid, g.proowner,"
                + " 'MEMBER'), pg_catalog.has_schema_privilege(r.oid, f.pronamespace, 'CREATE'),"
                + " pg_catalog.has_table_privilege(r.oid, CAST(? AS regclass), " + write + ")"
                + " OR pg_catalog.has_table_privilege(r.oid, CAST(? AS regclass), " + write + "),"
                + " pg_catalog.has_table_privilege(r.oid, c.oid, 'TRIGGER')"
                + " FROM pg_catalog.pg_roles r, pg_catalog.pg_class c, pg_catalog.pg_proc f, pg_catalog.pg_proc g"
                + " WHERE c.oid = CAST(? AS regclass) AND f.oid = pg_catalog.to_regprocedure(?)"
                + " AND g.oid = pg_catalog.to_regprocedure(?) AND r.rolcanlogin"
                + " AND pg_catalog.has_table_privilege(r.oid, c.oid, " + write + ") ORDER BY r.rolname";
    }

    /** The guard function's signature ({@code regprocedure}), which the trigger function calls. */
    public String guardSignature() {
        return epoch.guardFunction() + "(text,bigint,bigint)";
    }

    /** The rendered epoch table. */
    public String epochTable() {
        return epochTable;
    }

    /** The rendered lease table. */
    public String leaseTable() {
        return leaseTable;
    }
}
