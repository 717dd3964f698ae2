package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.jdbc.audit.SqlStates;

import dev.fencing.jdbc.config.Settings;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochSql;
import dev.fencing.sql.EpochTable;
import dev.fencing.sql.LeaseSql;
import dev.fencing.sql.ResourceTableSql;
import dev.fencing.sql.SessionFenceSql;
import dev.fencing.sql.MariaDbSessionFenceSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * At connect: resolves the epoch table (and, for the never-issued check, the lease table) to qualified names
 * ({@link FenceTables}), checks that the epoch table exists with its columns and with the database's own
 * protection of its marks ({@code fencing.schema=validate}), or creates what is missing ({@code create}).
 */
public final class EpochSchema {
    /** What to do first, before the SQL for a DBA, in every message about the fence's own objects. */
    static final String REMEDY = "Run 'fencing init' once (docs/issuer.md), or connect once with fencing.schema=create";

    /**
     * The fence's tables as resolved for one connection: the epoch table, the lease table (the configured name
     * when the never-issued check is off or unsupported) and whether the lease table existed at connect.
     */
    public record Tables(EpochTable epoch, EpochTable lease, boolean leasePresent, boolean resourceTablePresent) {
        Tables withResourceTable(boolean present) {
            return new Tables(epoch, lease, leasePresent, present);
        }
    }

    private EpochSchema() {
    }

    public static Tables prepare(Connection raw, Dialect dialect, Settings settings) throws SQLException {
        Settings.SchemaMode mode = settings.schemaMode();
        EpochTable configured = settings.epochTable();
        boolean autoCommit = raw.getAutoCommit();
        EpochSql sql = new EpochSql(dialect, configured);
        if (settings.sessionGuard() && dialect == Dialect.MARIADB) {
            mariaDbSessionFenceSql(configured); // refused before anything is created
        } else if (settings.sessionGuard()) {
            sessionFenceSql(dialect, configured); // refused before anything is created
        }
        try {
            EpochTable epoch = FenceTables.resolve(raw, dialect, configured);
            try (Statement statement = raw.createStatement()) {
                if (epoch == null && mode == Settings.SchemaMode.CREATE) {
                    statement.execute(sql.createTable());
                    epoch = FenceTables.resolve(raw, dialect, configured);
                }
                if (epoch == null) {
                    statement.executeQuery(sql.validateTable()).close(); // the database's own error, then ours
                    throw new SQLException("table " + configured + " not found", SqlStates.PG_UNDEFINED_TABLE);
                }
                sql = new EpochSql(dialect, epoch);
                statement.executeQuery(sql.validateTable()).close();
            }
            exact(raw, dialect, mode, "epoch table " + sql.table(), sql.exactnessParameters(), sql.makeExact());
            protect(raw, sql, mode, autoCommit);
            if (settings.sessionGuard() && dialect == Dialect.MARIADB) {
                mariaDbSessionFence(raw, mariaDbSessionFenceSql(epoch), mode, autoCommit);
            } else if (settings.sessionGuard()) {
                sessionFence(raw, sessionFenceSql(dialect, epoch), mode, autoCommit);
            }
            Tables tables = new Tables(epoch, settings.leaseTable(), false, false);
            if (settings.issuerCheck() && new LeaseSql(dialect, settings.leaseTable()).supported()) {
                tables = lease(raw, dialect, settings, epoch);
            }
            tables = tables.withResourceTable(resourceTable(raw, dialect, settings, epoch, autoCommit));
            if (!autoCommit) {
                raw.commit();
            }
            return tables;
        } catch (SQLException e) {
            if (!autoCommit) {
                try {
                    raw.rollback();
                } catch (SQLException rollbackFailure) {
                    e.addSuppressed(rollbackFailure);
                }
            }
            if (!aboutTheTable(e)) {
                // a lost connection, a timeout, a cancel, or our own configuration error: passed on as it is
                throw e;
            }
            SQLException configurationError = mode == Settings.SchemaMode.CREATE
                    ? Settings.configuration("cannot create the epoch table " + sql.table() + ": "
                    + Refusals.firstLine(e.getMessage()))
                    : Settings.configuration("the epoch table " + sql.table() + (tableMissing(e)
                    ? " does not exist" : " cannot be read as (resource, epoch): " + Refusals.firstLine(e.getMessage()))
                    + ". " + REMEDY + ", or have your DBA run: " + sql.createTable() + "; "
                    + String.join("; ", sql.protect()));
            configurationError.initCause(e);
            throw configurationError;
        }
    }

    /**
     * Makes sure the database itself refuses lowering or deleting a mark (SPEC C9): validate refuses a table
     * without the protection; create adds it (a concurrent connection adding it at the same time is fine).
     */
    private static void protect(Connection raw, EpochSql sql, Settings.SchemaMode mode, boolean autoCommit)
            throws SQLException {
        if (sql.protectionCheck() == null || holds(raw, sql.protectionCheck(), sql.protectionParameters())) {
            return;
        }
        List<String> statements = sql.protect();
        SQLException failure = null;
        if (mode == Settings.SchemaMode.CREATE) {
            failure = createRacing(raw, statements, autoCommit, sql.dialect() == Dialect.POSTGRESQL,
                    () -> holds(raw, sql.protectionCheck(), sql.protectionParameters()));
            if (failure == null) {
                return; // added now, or by a connection that raced this one
            }
        }
        SQLException missing = Settings.configuration("the epoch table " + sql.table() + " lacks the database's own"
                + " protection of its high-water marks (triggers that refuse lowering, deleting or truncating a mark,"
                + " whatever client writes it" + (sql.prefixGuard() == null ? "" : "; and the guard function every"
                + " guarded statement calls, new in this version") + ")"
                + (failure == null ? "" : " and it could not be added: " + failure.getMessage())
                + ". " + REMEDY + ", or have your DBA run: " + String.join("; ", statements));
        if (failure != null) {
            missing.initCause(failure);
        }
        throw missing;
    }

    /**
     * The resource table beside the epoch table (SPEC C11): whether it is there. Create makes it when missing and
     * declares the resource the connection's settings name; validate refuses a database without it when only
     * declared resources may be written ({@code fencing.resources=declared}, the default).
     */
    private static boolean resourceTable(Connection raw, Dialect dialect, Settings settings, EpochTable epoch,
                                         boolean autoCommit) throws SQLException {
        if (dialect == Dialect.GENERIC) {
            if (settings.declaredResourcesOnly()) {
                throw Settings.configuration(FencingProperty.RESOURCES.getName() + "=declared needs a database whose"
                        + " catalog the driver can ask (PostgreSQL, H2, MariaDB): set " + FencingProperty.RESOURCES.getName()
                        + "=any");
            }
            return false;
        }
        ResourceTableSql sql = new ResourceTableSql(dialect, epoch);
        boolean present = FenceTables.resolve(raw, dialect, sql.resourceTable()) != null;
        if (settings.schemaMode() == Settings.SchemaMode.CREATE) {
            if (!present) {
                SQLException failure = createRacing(raw, List.of(sql.createTable()), autoCommit,
                        dialect == Dialect.POSTGRESQL, () -> FenceTables.resolve(raw, dialect, sql.resourceTable()) != null);
                if (failure != null) {
                    throw failure;
                }
                present = true;
            }
            String pinned = settings.resource() != null ? settings.resource()
                    : System.getenv(settings.resourceEnvName()) == null ? FencingProperty.DEFAULT_RESOURCE : null;
            if (pinned != null) {
                declare(raw, sql, pinned); // what the settings name, or the driver's own default name; never the environment's
            }
        }
        if (!present && settings.declaredResourcesOnly()) {
            throw Settings.configuration(FencingProperty.RESOURCES.getName() + "=declared (the default) needs the"
                    + " resource table " + sql.table() + ", which says which resources exist and which tables they own. "
                    + REMEDY + ", or have your DBA run: " + sql.createTable() + "; or set "
                    + FencingProperty.RESOURCES.getName() + "=any to let every valid resource name write");
        }
        if (present) {
            try (Statement statement = raw.createStatement()) {
                statement.executeQuery(sql.validateTable()).close();
            } catch (SQLException e) {
                if (!aboutTheTable(e)) {
                    // a lost connection, a timeout, a cancel: passed on as it is, not a configuration error (found by
                    // the MariaDB session torture run: a KILL during connect was refused as ZF006)
                    throw e;
                }
                SQLException unreadable = Settings.configuration("the resource table " + sql.table() + " cannot be read"
                        + " as (resource, table_schema, table_name): " + Refusals.firstLine(e.getMessage()) + ". The"
                        + " driver's role needs SELECT on it (docs/resources.md); " + REMEDY);
                unreadable.initCause(e);
                throw unreadable;
            }
        }
        return present;
    }

    /** Declares {@code resource} in the resource table; nothing when it is declared already. */
    public static void declare(Connection raw, ResourceTableSql sql, String resource) throws SQLException {
        try (PreparedStatement insert = raw.prepareStatement(sql.declare())) {
            insert.setString(1, resource);
            insert.setString(2, resource);
            insert.executeUpdate();
        } catch (SQLException e) {
            if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                throw e; // a unique violation: a concurrent declaration of the same name won
            }
        }
    }

    /**
     * The session fence's SQL beside {@code epoch} ({@code fencing.guard=session}), or the configuration error why
     * there can be none: another database than PostgreSQL, or an epoch table name too long for its session table.
     */
    private static SessionFenceSql sessionFenceSql(Dialect dialect, EpochTable epoch) throws SQLException {
        String setting = FencingProperty.GUARD.getName();
        if (dialect != Dialect.POSTGRESQL) {
            throw Settings.configuration(setting + "=session is available on PostgreSQL and MariaDB only; this database is "
                    + dialect.name().toLowerCase(java.util.Locale.ROOT) + ": use " + setting + "=statement");
        }
        try {
            return new SessionFenceSql(epoch);
        } catch (IllegalArgumentException e) {
            throw Settings.configuration(setting + "=session: " + e.getMessage());
        }
    }

    /**
     * Makes sure the session fence is in force beside the epoch table ({@code fencing.guard=session}): its table,
     * its protection and the epoch table's hand-over trigger. Validate refuses a database without them; create
     * adds them.
     */
    private static void sessionFence(Connection raw, SessionFenceSql sql, Settings.SchemaMode mode,
                                     boolean autoCommit) throws SQLException {
        if (sessionFenceInForce(raw, sql)) {
            return;
        }
        SQLException failure = null;
        if (mode == Settings.SchemaMode.CREATE) {
            failure = createRacing(raw, sql.create(), autoCommit, true, () -> sessionFenceInForce(raw, sql));
            if (failure == null) {
                return; // added now, or by a connection that raced this one
            }
        }
        SQLException missing = Settings.configuration(FencingProperty.GUARD.getName() + "=session needs the session"
                + " table " + sql.table() + " with its protection and the hand-over trigger on " + sql.epochTable()
                + (failure == null ? "" : ", which could not be added: " + Refusals.firstLine(failure.getMessage()))
                + ". " + REMEDY + ", or have your DBA run: " + String.join("; ", sql.create()));
        if (failure != null) {
            missing.initCause(failure);
        }
        throw missing;
    }

    /** The MariaDB session fence's SQL beside {@code epoch}, or the configuration error why there can be none. */
    public static MariaDbSessionFenceSql mariaDbSessionFenceSql(EpochTable epoch) throws SQLException {
        try {
            return new MariaDbSessionFenceSql(epoch);
        } catch (IllegalArgumentException e) {
            throw Settings.configuration(FencingProperty.GUARD.getName() + "=session: " + e.getMessage());
        }
    }

    /**
     * MariaDB: makes sure the session fence is in force beside the epoch table: the session table, its three
     * protecting triggers and the epoch table's raise check, each with the body the driver creates. Validate refuses
     * a database without them; create adds them.
     */
    private static void mariaDbSessionFence(Connection raw, MariaDbSessionFenceSql sql, Settings.SchemaMode mode,
                                            boolean autoCommit) throws SQLException {
        if (holds(raw, sql.check(), sql.checkParameters())) {
            return;
        }
        SQLException failure = null;
        if (mode == Settings.SchemaMode.CREATE) {
            failure = createRacing(raw, sql.create(), autoCommit, false,
                    () -> holds(raw, sql.check(), sql.checkParameters()));
            if (failure == null) {
                return;
            }
        }
        SQLException missing = Settings.configuration(FencingProperty.GUARD.getName() + "=session needs the session"
                + " table " + sql.table() + " with its protection and the raise check on " + sql.epochTable()
                + (failure == null ? "" : ", which could not be added: " + Refusals.firstLine(failure.getMessage()))
                + ". " + REMEDY + ", or have your DBA run: " + String.join("; ", sql.create()));
        if (failure != null) {
            missing.initCause(failure);
        }
        throw missing;
    }

    private static boolean sessionFenceInForce(Connection raw, SessionFenceSql sql) throws SQLException {
        return holds(raw, "SELECT CASE WHEN to_regclass(?) IS NOT NULL THEN 1 ELSE 0 END", List.of(sql.table()))
                && holds(raw, sql.check(), sql.checkParameters());
    }

    /** A check that the fence's objects are in place. */
    private interface Check {
        boolean holds() throws SQLException;
    }

    /**
     * Runs the statements that create the fence's shared objects ({@code fencing init}), serialized with every other
     * session creating them (PostgreSQL: {@link #CREATE_LOCK}); the one way they are created, by the driver and the
     * issuer alike. Throws the failure, with the transaction rolled back when {@code autoCommit} is off.
     */
    public static void createShared(Connection raw, Dialect dialect, List<String> statements, boolean autoCommit)
            throws SQLException {
        SQLException failure = createRacing(raw, statements, autoCommit, dialect == Dialect.POSTGRESQL, null);
        if (failure != null) {
            throw failure;
        }
    }

    /** How often {@link #createRacing} runs the statements when another session's DDL got in the way. */
    private static final int CREATE_ATTEMPTS = 5;

    /**
     * Runs {@code statements} until {@code done} holds ({@code null}: until they ran without failure): {@code null}
     * then, else the last failure. Other sessions
     * may create the same shared objects at the same moment (the protection function serves every epoch table
     * of its schema), and PostgreSQL then fails one of the two {@code CREATE OR REPLACE} with "tuple concurrently
     * updated" or a unique violation in its catalog, before this table's own objects were made: such a failure is
     * tried again, a few times (found by a CI run beside other test runs).
     */
    private static SQLException createRacing(Connection raw, List<String> statements, boolean autoCommit,
                                             boolean postgres, Check done) throws SQLException {
        SQLException failure = null;
        for (int attempt = 1; attempt <= CREATE_ATTEMPTS; attempt++) {
            failure = postgres ? createSerialized(raw, statements, autoCommit) : create(raw, statements, autoCommit);
            if (done == null ? failure == null : done.holds()) {
                return null;
            }
            if (failure == null || !SqlStates.isConcurrentCatalogChange(failure)) {
                return failure;
            }
            try {
                Thread.sleep(20L * attempt);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return failure;
            }
        }
        return failure;
    }

    /**
     * PostgreSQL: the fence's objects are created by one session at a time, under a session-level advisory lock of
     * their own ({@link #CREATE_LOCK}), so two connections never replace the shared protection function at once.
     */
    private static SQLException createSerialized(Connection raw, List<String> statements, boolean autoCommit)
            throws SQLException {
        try (Statement lock = raw.createStatement()) {
            lock.execute("SELECT pg_catalog.pg_advisory_lock(" + CREATE_LOCK + ")");
            try {
                return create(raw, statements, autoCommit);
            } finally {
                lock.execute("SELECT pg_catalog.pg_advisory_unlock(" + CREATE_LOCK + ")");
            }
        }
    }

    /** The advisory key the creation of the fence's objects is serialized on ("fencing" in ASCII). */
    private static final long CREATE_LOCK = 0x66656e63696e67L;

    private static SQLException create(Connection raw, List<String> statements, boolean autoCommit)
            throws SQLException {
        try (Statement statement = raw.createStatement()) {
            for (String each : statements) {
                statement.execute(each);
            }
            return null;
        } catch (SQLException e) {
            if (!autoCommit) {
                raw.rollback();
            }
            return e;
        }
    }

    /**
     * Makes sure a fence table compares resource names exactly, so {@code HOCASE} and {@code hocase}, or {@code x}
     * and {@code x } (trailing space), are never one resource with one mark, and is transactional (MariaDB and
     * MySQL: see {@link EpochSql#exactnessCheck}): validate refuses a table that is not; create alters it.
     */
    private static void exact(Connection raw, Dialect dialect, Settings.SchemaMode mode, String what,
                              List<String> parameters, String alter) throws SQLException {
        String check = EpochSql.exactnessCheck(dialect);
        if (check == null || holds(raw, check, parameters)) {
            return;
        }
        if (mode == Settings.SchemaMode.CREATE) {
            try (Statement statement = raw.createStatement()) {
                statement.execute(alter);
            }
            if (holds(raw, check, parameters)) {
                return;
            }
        }
        throw Settings.configuration("the " + what + " compares resource names with the column's collation, which"
                + " ignores case or trailing spaces (two resources would share one high-water mark), or is not an"
                + " InnoDB table (no row locks, no transactions). " + REMEDY + ", or have your DBA run: " + alter);
    }

    /** Runs one of the fence's checks: one row whose first column is 1 when what it checks holds. */
    private static boolean holds(Connection raw, String check, List<String> parameters) throws SQLException {
        try (PreparedStatement query = raw.prepareStatement(check)) {
            for (int i = 0; i < parameters.size(); i++) {
                query.setString(i + 1, parameters.get(i));
            }
            try (ResultSet rs = query.executeQuery()) {
                return rs.next() && rs.getInt(1) == 1;
            }
        }
    }

    /**
     * Resolves the lease table for the never-issued check. A lease table named in {@code fencing.lease.table} must
     * exist; the default one may be created later, under the name it would get now.
     */
    private static Tables lease(Connection raw, Dialect dialect, Settings settings, EpochTable epoch)
            throws SQLException {
        EpochTable configured = settings.leaseTable();
        EpochTable lease = FenceTables.resolve(raw, dialect, configured);
        if (lease != null) {
            LeaseSql leaseSql = new LeaseSql(dialect, lease);
            exact(raw, dialect, settings.schemaMode(), "lease table " + leaseSql.table(),
                    leaseSql.exactnessParameters(), leaseSql.makeExact());
            return new Tables(epoch, lease, true, false);
        }
        if (settings.leaseTableConfigured()) {
            throw Settings.configuration(FencingProperty.LEASE_TABLE.getName() + ": the lease table " + configured
                    + " does not exist (the never-issued check needs it): create it with 'fencing init', correct the"
                    + " name, or set " + FencingProperty.ISSUER_CHECK.getName() + "=off when every resource is fed by"
                    + " an external coordinator");
        }
        return new Tables(epoch, FenceTables.locate(raw, dialect, configured), false, false);
    }

    /**
     * Whether the statement failed because of the table itself: SQLState class 42 (undefined table or column,
     * syntax, privileges) or 3F (no such schema), or H2's "schema not found" (90079).
     */
    /**
     * Table not found: PostgreSQL {@code 42P01}; H2 {@code 42S02}, {@code 42S03} (with candidates) and
     * {@code 42S04} (empty database); MariaDB {@code 42S02}.
     */
    private static boolean tableMissing(SQLException e) {
        return SqlStates.isMissingTable(e.getSQLState());
    }

    private static boolean aboutTheTable(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("42") || state.startsWith("3F")
                || state.equals(SqlStates.H2_SCHEMA_NOT_FOUND));
    }
}
