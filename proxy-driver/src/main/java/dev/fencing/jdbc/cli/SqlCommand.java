package dev.fencing.jdbc.cli;

import dev.fencing.jdbc.FencingProperty;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.SqlScript;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;

/**
 * {@code fencing sql}: runs SQL statements (a file, standard input or {@code -c} texts) through the fencing driver,
 * so a shell job writes with its lease's token where {@code psql} or {@code mariadb} would bypass the fence. Under
 * {@code fencing exec} the token and resource come from the environment the lease set; a script is cut into
 * statements by the fence's own lexer, so each statement sent is one the guard reads as one.
 */
@Command(name = "sql", mixinStandardHelpOptions = true,
        description = "Run SQL through the fencing driver with a token: statements from -c, a file (-f) or standard"
                + " input, one at a time. Under 'fencing exec' the token and resource come from $"
                + FencingProperty.DEFAULT_TOKEN_ENV + " and $" + FencingProperty.DEFAULT_RESOURCE_ENV + "."
                + " Query rows are printed tab-separated after a header line. Exits 0 when every statement ran,"
                + " 76 when the fence refused a stale token (the lease was lost), 64 when no token was in force,"
                + " 69 when the database refused a statement.")
final class SqlCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions db;

    @Option(names = "--resource", description = "The resource the statements write to. Default: $"
            + FencingProperty.DEFAULT_RESOURCE_ENV + ", then fencing.resource in the URL or config file.")
    String resource;

    @Option(names = "--token", description = "The fencing token. Default: $" + FencingProperty.DEFAULT_TOKEN_ENV
            + " (set by 'fencing exec'), then fencing.token in the URL or config file.")
    String token;

    @Option(names = {"-1", "--single-transaction"},
            description = "Run every statement in one transaction: all of them commit, or none does.")
    boolean singleTransaction;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Source source;

    /** Where the statements come from: {@code -c} texts, or one file ({@code -} for standard input). */
    static final class Source {
        @Option(names = {"-c", "--command"}, paramLabel = "SQL",
                description = "A statement (or several, separated by ;) to run; may be repeated.")
        List<String> commands;

        @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "A SQL script to run; - reads standard"
                + " input.")
        String file;
    }

    @Override
    public Integer call() throws SQLException {
        ConnectionOptions.Target target = db.target();
        String url = target.fencedUrl();
        Properties info = target.info();
        if (resource != null) {
            info.setProperty(FencingProperty.RESOURCE.getName(), resource);
        }
        if (token != null) {
            info.setProperty(FencingProperty.TOKEN.getName(), token);
        }
        Dialect dialect = Dialect.fromUrl("jdbc:" + url.substring("jdbc:fencing:".length()));
        List<SqlScript.Statement> statements = new ArrayList<>();
        for (String text : texts()) {
            statements.addAll(SqlScript.statements(text, dialect));
        }
        if (statements.isEmpty()) {
            throw new CliException(Exit.USAGE, "no SQL statement to run");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (Connection connection = DriverManager.getConnection(url, info)) {
            if (singleTransaction) {
                connection.setAutoCommit(false);
            }
            for (int i = 0; i < statements.size(); i++) {
                SqlScript.Statement statement = statements.get(i);
                try (Statement s = connection.createStatement()) {
                    print(s, s.execute(statement.text()), out);
                } catch (SQLException e) {
                    if (singleTransaction) {
                        rollback(connection);
                    }
                    throw failure(statement, i + 1, statements.size(), singleTransaction, e);
                }
            }
            if (singleTransaction) {
                connection.commit();
            }
        }
        out.flush();
        return Exit.OK;
    }

    private List<String> texts() {
        if (source.commands != null) {
            return source.commands;
        }
        try {
            if (source.file.equals("-")) {
                InputStream in = System.in;
                return List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            return List.of(Files.readString(Path.of(source.file), StandardCharsets.UTF_8));
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new CliException(Exit.USAGE, "cannot read " + source.file + ": " + e.getMessage());
        }
    }

    private static void print(Statement s, boolean rows, PrintWriter out) throws SQLException {
        while (true) {
            if (rows) {
                try (ResultSet rs = s.getResultSet()) {
                    ResultSetMetaData meta = rs.getMetaData();
                    int columns = meta.getColumnCount();
                    StringBuilder line = new StringBuilder();
                    for (int c = 1; c <= columns; c++) {
                        line.append(c > 1 ? "\t" : "").append(meta.getColumnLabel(c));
                    }
                    out.println(line);
                    while (rs.next()) {
                        line.setLength(0);
                        for (int c = 1; c <= columns; c++) {
                            String value = rs.getString(c);
                            line.append(c > 1 ? "\t" : "").append(value == null ? "" : value);
                        }
                        out.println(line);
                    }
                }
            } else if (s.getUpdateCount() == -1) {
                return;
            }
            rows = s.getMoreResults();
        }
    }

    private static void rollback(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // the statement's own failure is what the caller needs to see; the transaction ends with the connection
        }
    }

    /** The failure of statement {@code number}: why, where, and an exit code a shell job can act on. */
    private static CliException failure(SqlScript.Statement statement, int number, int total,
            boolean singleTransaction, SQLException e) {
        String state = e.getSQLState();
        String where = "statement " + number + " of " + total + " (line " + statement.line() + ")";
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        String detail = where + " failed: " + message + (state == null ? "" : " (SQLState " + state + ")")
                + (number == 1 ? "" : singleTransaction ? "; the statements before it were rolled back"
                : "; the statements before it ran and stay committed");
        if (FencingSqlState.STALE_TOKEN.equals(state)) {
            return new CliException(Exit.LOST, detail + ". The lease was lost: a newer token has been used.");
        }
        if (FencingSqlState.INVALID_TOKEN.equals(state)) {
            return new CliException(Exit.USAGE, detail + ". Run it under 'fencing exec --resource <r> -- fencing sql"
                    + " ...' or give --token.");
        }
        return new CliException(Exit.DATABASE, detail);
    }
}
