package dev.fencing.jdbc.cli;

import dev.fencing.jdbc.issuer.AcquireOptions;
import dev.fencing.jdbc.issuer.Lease;
import dev.fencing.jdbc.issuer.LeaseLostException;
import dev.fencing.jdbc.issuer.LeaseStatus;
import dev.fencing.jdbc.issuer.LeaseUnavailableException;
import dev.fencing.jdbc.issuer.Repair;
import dev.fencing.jdbc.issuer.TokenIssuer;
import dev.fencing.sql.Dialect;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The {@code fencing} command: {@code init}, {@code acquire}, {@code renew}, {@code release}, {@code status},
 * {@code reconcile}, {@code enforce}, {@code declare}, {@code map}, {@code unmap}, {@code exec} and {@code sql}. Run it with {@code java -cp fencing-jdbc.jar:<jdbc driver jar>
 * dev.fencing.jdbc.cli.FencingCli ...} (or {@code java -jar fencing-jdbc.jar} for commands that need no database).
 */
@Command(name = "fencing", mixinStandardHelpOptions = true, version = "fencing-jdbc issuer",
        description = "Fencing tokens from the database: leases, tokens, and jobs run under a lease.",
        subcommands = {ExecCommand.class, SqlCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success (exec: the command's own exit code is passed through)",
            "64:bad arguments or configuration",
            "69:database unreachable or a statement failed",
            "70:internal error",
            "75:the lease is held by another holder (acquire, exec)",
            "76:the lease was lost (renew, release; exec stopped its command)",
            "127:exec could not start the command"})
public final class FencingCli {
    private static final java.util.logging.Logger QUIET_DRIVER_LOG =
            java.util.logging.Logger.getLogger(dev.fencing.jdbc.audit.FenceMetrics.LOGGER);

    @Spec
    CommandSpec spec;

    /** Runs the command and exits the JVM with its exit code. */
    public static void main(String[] args) {
        // The command reports every failure itself, in one line; the driver's own log records (two lines each under
        // java.util.logging's default format) would repeat them between its output.
        QUIET_DRIVER_LOG.setLevel(java.util.logging.Level.SEVERE);
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the command with the given output streams and returns its exit code (never exits the JVM). */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new FencingCli());
        cli.setOut(out);
        cli.setErr(err);
        cli.setParameterExceptionHandler((e, arguments) -> {
            String name = e.getCommandLine().getCommandName();
            err.println("fencing: " + e.getMessage() + " (see 'fencing " + (name.equals("fencing") ? "" : name + " ")
                    + "--help')");
            if (name.equals("exec") && e instanceof CommandLine.UnmatchedArgumentException) {
                err.println("fencing: put the command after '--', so that its own options are not read as"
                        + " fencing's: fencing exec --resource <resource> -- <command> [<args>...]");
            }
            return Exit.USAGE;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            err.println(describe(e));
            return exitCode(e);
        });
        cli.setExitCodeExceptionMapper(FencingCli::exitCode);
        return cli.execute(args);
    }

    private static String describe(Exception e) {
        if (e instanceof CliException || e instanceof IllegalArgumentException) {
            return "fencing: " + e.getMessage();
        }
        if (e instanceof SQLException) {
            String message = e.getMessage();
            if (message != null && message.startsWith("No suitable driver")) {
                return "fencing: no JDBC driver on the class path accepts the URL: run java -cp"
                        + " fencing-jdbc.jar:<your database's driver jar> dev.fencing.jdbc.cli.FencingCli ...";
            }
            String state = ((SQLException) e).getSQLState();
            if (dev.fencing.jdbc.audit.SqlStates.isMissingTable(state)) {
                return "fencing: the fence's tables are missing in this database (" + dev.fencing.jdbc.audit.Refusals.firstLine(message)
                        + "): run 'fencing init' with the same --url (and --epoch-table/--lease-table) first";
            }
            String text = message != null && message.startsWith("fencing: ") ? message : "fencing: " + message;
            return text + (state == null ? "" : " (SQLState " + state + ")");
        }
        return "fencing: internal error: " + e;
    }

    private static int exitCode(Throwable e) {
        if (e instanceof CliException) {
            return ((CliException) e).exitCode();
        }
        if (e instanceof IllegalArgumentException) {
            return Exit.USAGE;
        }
        if (e instanceof LeaseUnavailableException) {
            return Exit.BUSY;
        }
        if (e instanceof LeaseLostException) {
            return Exit.LOST;
        }
        if (e instanceof SQLException) {
            String state = ((SQLException) e).getSQLState();
            return state != null && state.equals(dev.fencing.jdbc.FencingSqlState.CONFIGURATION) ? Exit.USAGE
                    : Exit.DATABASE;
        }
        return Exit.INTERNAL;
    }

    @Command(name = "init", mixinStandardHelpOptions = true,
            description = "Create the epoch table and the lease table when missing (idempotent).")
    int init(@Mixin ConnectionOptions db,
             @Option(names = "--dry-run", description = "Print the SQL for a DBA instead of running it.")
             boolean dryRun,
             @Option(names = "--dialect", paramLabel = "h2|postgresql|mariadb",
                     description = "With --dry-run: the database kind (default: from the URL).") String dialect)
            throws SQLException {
        PrintWriter out = spec.commandLine().getOut();
        if (dryRun) {
            List<String> statements;
            if (dialect == null && db.url == null && System.getenv(ConnectionOptions.URL_ENV) == null
                    && db.config == null && System.getenv(ConnectionOptions.CONFIG_ENV) == null) {
                throw new CliException(Exit.USAGE, "init --dry-run needs the database kind: give --dialect"
                        + " h2|postgresql|mariadb, or --url");
            }
            if (dialect != null) {
                statements = TokenIssuer.createTablesSql(dialect(dialect),
                        dev.fencing.sql.EpochTable.of(db.epochTable == null ? "fencing_epoch" : db.epochTable),
                        dev.fencing.sql.EpochTable.of(db.leaseTable == null ? "fencing_lease" : db.leaseTable));
            } else {
                TokenIssuer issuer = db.issuer();
                statements = TokenIssuer.createTablesSql(Dialect.fromUrl(issuer.url()), issuer.epochTable(),
                        issuer.leaseTable());
            }
            statements.forEach(sql -> out.println(sql + ";"));
            return Exit.OK;
        }
        try (TokenIssuer issuer = db.issuer()) {
            issuer.createTables();
            out.println("fencing: tables " + issuer.epochTable() + " and " + issuer.leaseTable() + " are ready");
        }
        return Exit.OK;
    }

    private static Dialect dialect(String name) {
        switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "h2":
                return Dialect.H2;
            case "postgresql":
            case "postgres":
                return Dialect.POSTGRESQL;
            case "mariadb":
            case "mysql":
                return Dialect.MARIADB;
            default:
                throw new CliException(Exit.USAGE, "--dialect must be h2, postgresql or mariadb, was '" + name + "'");
        }
    }

    @Command(name = "acquire", mixinStandardHelpOptions = true,
            description = "Acquire a lease and print its token (scripts: TOKEN=$(fencing acquire ...)).")
    int acquire(@Mixin ConnectionOptions db, @Mixin LeaseOptions lease,
                @Option(names = "--ttl", required = true, converter = DurationConverter.class,
                        paramLabel = "<duration>", description = "Lease time to live, e.g. 30s.") Duration ttl,
                @Option(names = "--wait", defaultValue = "0s", converter = DurationConverter.class,
                        paramLabel = "<duration>",
                        description = "Wait up to this long for another holder's lease to end (default: fail at once).")
                Duration wait,
                @Option(names = "--revoke", description = "Immediate revocation: make the new token the resource's"
                        + " high-water mark now, so the previous holder's writes fail even if they arrive first.")
                boolean revoke,
                @Option(names = "--force", description = "Take the lease even from a live holder (operator takeover).")
                boolean force) throws SQLException {
        try (TokenIssuer issuer = db.issuer()) {
            Lease granted = issuer.acquire(lease.resource, lease.holder, ttl,
                    new AcquireOptions(wait, revoke, force));
            spec.commandLine().getOut().println(granted.token());
            spec.commandLine().getErr().println("fencing: '" + granted.holder() + "' holds '" + granted.resource()
                    + "' with token " + granted.token() + " until " + granted.expiresAt() + " (database time)");
        }
        return Exit.OK;
    }

    @Command(name = "renew", mixinStandardHelpOptions = true,
            description = "Extend a lease by its time to live.")
    int renew(@Mixin ConnectionOptions db, @Mixin LeaseOptions lease, @Mixin TokenOption token,
              @Option(names = "--ttl", required = true, converter = DurationConverter.class,
                      paramLabel = "<duration>", description = "New time to live from now, e.g. 30s.") Duration ttl)
            throws SQLException {
        try (TokenIssuer issuer = db.issuer()) {
            Lease renewed = issuer.renew(new Lease(lease.resource, lease.holder, token.token, null), ttl);
            spec.commandLine().getOut().println("renewed until " + renewed.expiresAt() + " (database time)");
        }
        return Exit.OK;
    }

    @Command(name = "release", mixinStandardHelpOptions = true,
            description = "Release a lease (its token stays issued and is never handed out again).")
    int release(@Mixin ConnectionOptions db, @Mixin LeaseOptions lease, @Mixin TokenOption token)
            throws SQLException {
        try (TokenIssuer issuer = db.issuer()) {
            if (!issuer.release(new Lease(lease.resource, lease.holder, token.token, null))) {
                throw new CliException(Exit.LOST, "'" + lease.holder + "' does not hold '" + lease.resource
                        + "' with token " + token.token + "; nothing released");
            }
        }
        return Exit.OK;
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Show each resource's high-water mark, issued mark, holder and expiry.")
    int status(@Mixin ConnectionOptions db,
               @Option(names = "--resource", paramLabel = "<resource>", description = "Only this resource.")
               String only) throws SQLException {
        PrintWriter out = spec.commandLine().getOut();
        try (TokenIssuer issuer = db.issuer()) {
            List<LeaseStatus> all = issuer.status();
            out.printf("%-30s %12s %12s  %-30s %-28s %s%n", "RESOURCE", "HWM", "ISSUED", "HOLDER",
                    "EXPIRES (database time)", "STATE");
            for (LeaseStatus s : all) {
                if (only != null && !only.equals(s.resource())) {
                    continue;
                }
                String state = !s.underIssuer() ? "unmanaged" : s.holder() == null ? "free" : s.live() ? "held"
                        : "expired";
                out.printf("%-30s %12d %12s  %-30s %-28s %s%n", s.resource(), s.highWaterMark(),
                        s.underIssuer() ? Long.toString(s.issued()) : "-", s.holder() == null ? "-" : s.holder(),
                        s.expiresAt() == null ? "-" : s.expiresAt(), state);
                for (String warning : s.warnings()) {
                    out.println("  warning: " + s.resource() + ": " + warning);
                }
            }
        }
        return Exit.OK;
    }

    @Command(name = "reconcile", mixinStandardHelpOptions = true,
            description = "After a restore: raise issued marks below the high-water mark"
            + " (never lowers anything).")
    int reconcile(@Mixin ConnectionOptions db,
                  @Option(names = "--adopt", description = "Also give every resource of the epoch table without a"
                          + " lease row one at its high-water mark (puts it under the issuer's never-issued check).")
                  boolean adopt) throws SQLException {
        PrintWriter out = spec.commandLine().getOut();
        try (TokenIssuer issuer = db.issuer()) {
            List<Repair> repairs = issuer.reconcile(adopt);
            for (Repair r : repairs) {
                out.println(r.before() < 0 ? "adopted " + r.resource() + ": issued mark " + r.after()
                        : "repaired " + r.resource() + ": issued mark " + r.before() + " -> " + r.after());
            }
            out.println("fencing: " + repairs.size() + " repair(s)");
        }
        return Exit.OK;
    }

    @Command(name = "enforce", mixinStandardHelpOptions = true,
            description = {"Make the database refuse changes to TABLEs without a current token for the resource, from"
                    + " any client (psql, mariadb, other languages, the driver). PostgreSQL and MariaDB.",
                    "  fencing enforce TABLE... --resource R   put the tables under enforcement",
                    "  fencing enforce --off TABLE...          take them out",
                    "  fencing enforce --list                  list them, check them, and name the roles that could"
                    + " get around them"})
    int enforce(@Mixin ConnectionOptions db,
                @Option(names = "--resource", paramLabel = "<resource>",
                        description = "The resource whose token changes to the tables need.") String resource,
                @Option(names = "--off", description = "Take the tables out of enforcement.") boolean off,
                @Option(names = "--list", description = "List the enforced tables and check them.") boolean list,
                @picocli.CommandLine.Parameters(arity = "0..*", paramLabel = "TABLE",
                        description = "Tables (table or schema.table, as the database's search_path finds them).")
                List<String> tables) throws SQLException {
        PrintWriter out = spec.commandLine().getOut();
        List<String> named = tables == null ? List.of() : tables;
        if (list) {
            if (off || resource != null || !named.isEmpty()) {
                throw new CliException(Exit.USAGE, "enforce --list takes no tables, --resource or --off");
            }
            try (TokenIssuer issuer = db.issuer()) {
                List<dev.fencing.jdbc.issuer.EnforcedTable> enforced = issuer.enforced();
                out.printf("%-40s %-30s %s%n", "TABLE", "RESOURCE", "STATE");
                for (dev.fencing.jdbc.issuer.EnforcedTable t : enforced) {
                    out.printf("%-40s %-30s %s%n", t.table(), t.resource(), t.inForce() ? "enforced"
                            : "NOT IN FORCE (trigger disabled or altered: run fencing enforce again)");
                    for (String bypass : t.bypasses()) {
                        out.println("  warning: " + bypass);
                    }
                }
                spec.commandLine().getErr().println("fencing: " + enforced.size() + " table(s) enforced");
            }
            return Exit.OK;
        }
        if (named.isEmpty()) {
            throw new CliException(Exit.USAGE, "name the tables: fencing enforce TABLE... --resource R (or --off"
                    + " TABLE..., or --list)");
        }
        try (TokenIssuer issuer = db.issuer()) {
            if (off) {
                if (resource != null) {
                    throw new CliException(Exit.USAGE, "enforce --off takes no --resource");
                }
                for (String table : issuer.unenforce(named)) {
                    out.println("fencing: " + table + " is no longer enforced");
                }
                return Exit.OK;
            }
            if (resource == null) {
                throw new CliException(Exit.USAGE, "enforce needs --resource: the resource whose token changes to the"
                        + " tables need");
            }
            for (String table : issuer.enforce(named, resource)) {
                out.println("fencing: " + table + " is enforced for resource '" + resource + "'");
            }
        }
        return Exit.OK;
    }

    @Command(name = "declare", mixinStandardHelpOptions = true,
            description = {"Declare resources, so that a fenced write may start them (SPEC C11). A write under a name"
                    + " that is neither declared nor mapped, nor has a lease or a mark, is refused (fencing.resources="
                    + "declared, the default), so a misspelt or differently cased name never starts a new resource.",
                    "  fencing declare RESOURCE...          declare them",
                    "  fencing declare --list               list declared resources and mapped tables"})
    int declare(@Mixin ConnectionOptions db,
                @Option(names = "--list", description = "List declared resources and mapped tables.") boolean list,
                @picocli.CommandLine.Parameters(arity = "0..*", paramLabel = "RESOURCE") List<String> resources)
            throws SQLException {
        List<String> named = resources == null ? List.of() : resources;
        if (list) {
            if (!named.isEmpty()) {
                throw new CliException(Exit.USAGE, "declare --list takes no resources");
            }
            return listResources(db);
        }
        if (named.isEmpty()) {
            throw new CliException(Exit.USAGE, "name the resources: fencing declare RESOURCE... (or --list)");
        }
        try (TokenIssuer issuer = db.issuer()) {
            issuer.declare(named);
        }
        for (String resource : named) {
            spec.commandLine().getOut().println("fencing: resource '" + resource + "' is declared");
        }
        return Exit.OK;
    }

    @Command(name = "map", mixinStandardHelpOptions = true,
            description = {"Map tables to the resource that owns them (SPEC C11): a change to a mapped table needs a"
                    + " current token for its resource, whatever resource the connection names.",
                    "  fencing map TABLE... --resource R    map them (and their partitions) to R, declaring R",
                    "  fencing map --list                   list declared resources and mapped tables",
                    "Connections opened after the change see it."})
    int map(@Mixin ConnectionOptions db,
            @Option(names = "--resource", paramLabel = "<resource>", description = "The resource that owns the tables.")
            String resource,
            @Option(names = "--list", description = "List declared resources and mapped tables.") boolean list,
            @picocli.CommandLine.Parameters(arity = "0..*", paramLabel = "TABLE",
                    description = "Tables (table or schema.table, as the database's search_path finds them).")
            List<String> tables) throws SQLException {
        List<String> named = tables == null ? List.of() : tables;
        if (list) {
            if (resource != null || !named.isEmpty()) {
                throw new CliException(Exit.USAGE, "map --list takes no tables or --resource");
            }
            return listResources(db);
        }
        if (named.isEmpty() || resource == null) {
            throw new CliException(Exit.USAGE, "name the tables and their resource: fencing map TABLE... --resource R"
                    + " (or --list)");
        }
        try (TokenIssuer issuer = db.issuer()) {
            issuer.declare(List.of(resource));
            for (String table : issuer.map(named, resource)) {
                spec.commandLine().getOut().println("fencing: " + table + " belongs to resource '" + resource + "'");
            }
        }
        return Exit.OK;
    }

    @Command(name = "unmap", mixinStandardHelpOptions = true,
            description = "Remove the mappings of tables (and of their partitions): they are fenced for the"
                    + " connection's resource again, in connections opened after the change.")
    int unmap(@Mixin ConnectionOptions db,
              @picocli.CommandLine.Parameters(arity = "1..*", paramLabel = "TABLE") List<String> tables)
            throws SQLException {
        try (TokenIssuer issuer = db.issuer()) {
            for (String table : issuer.unmap(tables)) {
                spec.commandLine().getOut().println("fencing: " + table + " is no longer mapped");
            }
        }
        return Exit.OK;
    }

    private int listResources(ConnectionOptions db) throws SQLException {
        PrintWriter out = spec.commandLine().getOut();
        try (TokenIssuer issuer = db.issuer()) {
            List<dev.fencing.jdbc.issuer.ResourceEntry> entries = issuer.resources();
            out.printf("%-30s %s%n", "RESOURCE", "TABLE");
            for (dev.fencing.jdbc.issuer.ResourceEntry e : entries) {
                out.printf("%-30s %s%n", e.resource(), e.table() == null ? "(declared)" : e.table());
            }
        }
        return Exit.OK;
    }

    /** The resource and holder of a lease command. */
    static final class LeaseOptions {
        @Option(names = "--resource", required = true, description = "The resource.")
        String resource;

        @Option(names = "--holder", required = true, description = "Who holds the lease (any name up to 200 characters).")
        String holder;
    }

    /** The token of an existing lease. */
    static final class TokenOption {
        @Option(names = "--token", required = true, converter = TokenConverter.class, paramLabel = "<token>",
                description = "The lease's token (a positive integer).")
        long token;
    }
}
