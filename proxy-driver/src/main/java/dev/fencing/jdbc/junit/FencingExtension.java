package dev.fencing.jdbc.junit;

import dev.fencing.jdbc.audit.Refusals;
import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingAudit;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.jdbc.FencingMode;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.sql.ResourceName;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Runs a JUnit 5 test class against a {@code jdbc:fencing:} {@link DataSource} in audit or enforce mode. Register
 * it on a static field with {@code @RegisterExtension}; test methods (and constructors, {@code @BeforeEach}, ...)
 * receive the data source as a {@code DataSource} parameter, or read {@link #dataSource()}.
 *
 * <p>With {@link #scope(String, long)} every test, and the class's {@code @BeforeAll}/{@code @AfterAll}, run inside
 * {@link Fencing#scope}; without it, tests run without a token, as legacy code does before tokens are wired. After
 * each test, the refusals it caused (in audit mode: the statements enforce mode would refuse) fail the test when
 * {@link #failOnRefusals(boolean)} says so, by default in enforce mode only, so that a refusal the code under test
 * caught and swallowed still fails the build. After the class, the {@link FencingAudit} report of what the class
 * caused is written to {@link #reportTo(Path)}: by default {@code target/fencing-audit/<test class>.json}, with the
 * readable summary beside it as {@code .txt}; at JVM exit the whole run's report goes to
 * {@code target/fencing-audit/jvm.json}, which is also where the application's own audit-mode connections without a
 * {@code fencing.audit.file} write (see {@link FencingAudit#defaultReportFile}), so a test run writes reports
 * only under {@code target/fencing-audit} unless told otherwise. When refusals fail tests, a refusal caused outside
 * the tests (in {@code @BeforeAll}, {@code @AfterAll}, a static initializer) fails the class, after its report is
 * written.
 *
 * <p>Before the class runs, the extension opens one connection through its data source, which creates the epoch
 * table when it is missing; so application code that opens its own {@code jdbc:fencing:} connections to the same
 * database needs no {@code fencing.schema=create} of its own.
 *
 * <p>Refusals are attributed to the test that was running when they were recorded, so run the test classes that
 * use this extension sequentially (JUnit's default).
 */
public final class FencingExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(FencingExtension.class);

    private final FencingDataSource dataSource = new FencingDataSource();
    private FencingMode mode = FencingMode.AUDIT;
    private String resource;
    private long token;
    private Boolean failOnRefusals;
    private Path reportFile;
    /** Whether a connection through {@link #dataSource} has prepared the epoch table. */
    private volatile boolean prepared;

    /** The whole run's report, written at JVM exit; also where the application's own audit-mode URLs write. */
    static final Path JVM_REPORT = Path.of("target", "fencing-audit", "jvm.json");

    private FencingExtension(String url) {
        dataSource.setUrl(url);
        dataSource.set(FencingProperty.SCHEMA, "create");
        dataSource.set(FencingProperty.MODE, "audit");
        dataSource.set(FencingProperty.AUDIT_FILE, JVM_REPORT.toString());
        FencingAudit.defaultReportFile(JVM_REPORT);
    }

    /**
     * An extension over {@code url}: a {@code jdbc:fencing:} URL, or a plain JDBC URL (such as your test
     * database's {@code jdbc:h2:mem:app;DB_CLOSE_DELAY=-1}) that gets the {@code jdbc:fencing:} prefix. The epoch
     * table is created when missing ({@code fencing.schema=create}; override with {@link #property}).
     */
    public static FencingExtension forUrl(String url) {
        if (url == null || !url.regionMatches(true, 0, "jdbc:", 0, 5)) {
            throw new IllegalArgumentException("FencingExtension needs a JDBC URL (jdbc:...), was " + url);
        }
        boolean fenced = url.regionMatches(true, 0, "jdbc:fencing:", 0, "jdbc:fencing:".length());
        return new FencingExtension(fenced ? url : "jdbc:fencing:" + url.substring(5));
    }

    /** Audit (the default) or enforce: the driver's {@code fencing.mode} for the tests' connections. */
    public FencingExtension mode(FencingMode mode) {
        this.mode = mode;
        dataSource.set(FencingProperty.MODE, mode.name().toLowerCase(Locale.ROOT));
        return this;
    }

    /** Runs every test, and the class's setup and tear-down, as the owner of {@code resource} with {@code token}. */
    public FencingExtension scope(String resource, long token) {
        if (ResourceName.problem(resource) != null || token <= 0) {
            throw new IllegalArgumentException("a fencing scope needs a valid resource name and a positive token, was "
                    + resource + " and " + token + (token <= 0 ? "" : ": " + ResourceName.problem(resource)));
        }
        this.resource = resource;
        // the data source's own resource too, so the connection that prepares the epoch table declares it (SPEC C11)
        dataSource.set(FencingProperty.RESOURCE, resource);
        this.token = token;
        return this;
    }

    /** Whether a test that caused refusals fails; by default true in enforce mode and false in audit mode. */
    public FencingExtension failOnRefusals(boolean fail) {
        this.failOnRefusals = fail;
        return this;
    }

    /**
     * Where the class's report goes: a JSON file, with the readable summary beside it as {@code .txt}; or, when
     * {@code path} is an existing directory, {@code <test class>.json} in it.
     */
    public FencingExtension reportTo(Path path) {
        this.reportFile = path;
        return this;
    }

    /** Any driver property: {@code user}, {@code password}, the underlying driver's, or a {@code fencing.*} one. */
    public FencingExtension property(String name, String value) {
        dataSource.setProperty(name, value);
        if (FencingProperty.forName(name) == FencingProperty.AUDIT_FILE && value != null && !value.isBlank()) {
            FencingAudit.defaultReportFile(Path.of(value.trim()));
        }
        return this;
    }

    /** The fenced data source the tests use; hand it to your pool or framework. */
    public DataSource dataSource() {
        return dataSource;
    }

    public FencingMode mode() {
        return mode;
    }

    private boolean failing() {
        return failOnRefusals != null ? failOnRefusals : mode == FencingMode.ENFORCE;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NAMESPACE).put(FencingAudit.Report.class, FencingAudit.report());
        context.getStore(NAMESPACE).put(InTests.class, new InTests());
        prepareEpochTable();
        openScope(context);
    }

    /**
     * Creates the epoch table when missing, for the application's own connections as much as for ours, by opening
     * one connection: before the class, and again before each test until it worked, since the class's own
     * {@code @BeforeAll} (which runs after this extension's) may be what creates the database or its schema. A
     * failure here is not the test's: the same error comes back from the first real use of the database.
     */
    private void prepareEpochTable() {
        if (prepared) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            prepared = c.isValid(1);
        } catch (SQLException notReadyYet) {
            // retried before the next test; see above
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        closeScope(context);
        String name = context.getRequiredTestClass().getName() + ".json";
        Path file = reportFile == null ? Path.of("target", "fencing-audit", name)
                : Files.isDirectory(reportFile) ? reportFile.resolve(name) : reportFile;
        FencingAudit.Report caused = caused(context);
        try {
            caused.write(file);
        } catch (IOException e) {
            throw new UncheckedIOException("fencing: cannot write the audit report to " + file, e);
        }
        if (!caused.isEmpty()) {
            // Under a build tool the report is only a file: say on the console where it is.
            System.out.println(caused.headline() + " in " + context.getDisplayName() + "; report: "
                    + file.toAbsolutePath() + " (and " + FencingAudit.Report.summaryFile(file).getFileName() + ")");
        }
        long outside = caused.total() - context.getStore(NAMESPACE).get(InTests.class, InTests.class).count;
        if (failing() && outside > 0) {
            throw new AssertionError("fencing (" + mode.name().toLowerCase(Locale.ROOT) + " mode): "
                    + context.getDisplayName() + " caused " + outside
                    + " refusal(s) outside its tests (@BeforeAll, @AfterAll or static initialization); the class's"
                    + " report, " + file + ", lists them with the tests' own\n" + caused.summary());
        }
    }

    /** How many refusals the class's tests caused, so that the rest can be told apart at the end of the class. */
    private static final class InTests {
        long count;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        prepareEpochTable();
        context.getStore(NAMESPACE).put(FencingAudit.Report.class, FencingAudit.report());
        openScope(context);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        closeScope(context);
        FencingAudit.Report caused = caused(context);
        InTests inTests = context.getStore(NAMESPACE).get(InTests.class, InTests.class);
        if (inTests != null) {
            inTests.count += caused.total();
        }
        if (failing() && !caused.isEmpty()) {
            throw new AssertionError("fencing (" + mode.name().toLowerCase(Locale.ROOT) + " mode): "
                    + context.getDisplayName() + " caused refusals\n" + caused.summary());
        }
    }

    /** What was recorded since this context (test or class) started. */
    private static FencingAudit.Report caused(ExtensionContext context) {
        FencingAudit.Report before = context.getStore(NAMESPACE).remove(FencingAudit.Report.class,
                FencingAudit.Report.class);
        return FencingAudit.report().since(before);
    }

    private void openScope(ExtensionContext context) {
        if (resource != null) {
            context.getStore(NAMESPACE).put(Fencing.Scope.class, Fencing.scope(resource, token));
        }
    }

    private void closeScope(ExtensionContext context) {
        Fencing.Scope scope = context.getStore(NAMESPACE).remove(Fencing.Scope.class, Fencing.Scope.class);
        if (scope != null) {
            scope.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == DataSource.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return dataSource;
    }
}
