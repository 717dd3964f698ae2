package dev.fencing.jdbc.cli;

import dev.fencing.sql.MariaDbEnforceSql;
import dev.fencing.sql.ResourceName;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The option file {@code fencing exec} hands the MySQL-family command-line clients ({@code mariadb}, {@code mysql},
 * {@code mariadb-dump}, ...), so that they connect with the token in the session's user variables and an enforced
 * table admits their writes ({@code docs/enforcement.md}): a {@code my.cnf} in a directory of its own, named by
 * {@code MARIADB_HOME} (which the MariaDB clients read first) and {@code MYSQL_HOME} (the MySQL clients), holding
 * {@code [client] init-command=SET @fencing_resource='R', @fencing_token=N}. A {@code my.cnf} those variables named
 * before is {@code !include}d first, so its options still hold. The clients read it after {@code /etc/my.cnf} and
 * {@code /etc/mysql/my.cnf} and before {@code ~/.my.cnf} and {@code --defaults-extra-file}, where a later
 * {@code init-command} would replace this one (then the job has no token and is refused, never let through).
 */
final class ClientOptionFile {
    static final String MARIADB_HOME = "MARIADB_HOME";
    static final String MYSQL_HOME = "MYSQL_HOME";

    private final Path directory;

    private ClientOptionFile(Path directory) {
        this.directory = directory;
    }

    /**
     * Writes the option file for {@code resource} at {@code token} into a new private directory; {@code environment}
     * is the environment {@code exec} was started with (for the {@code my.cnf} to include).
     */
    static ClientOptionFile write(String resource, long token, Map<String, String> environment) throws IOException {
        ResourceName.require(resource); // no quote or backslash: the value means the same inside '...' in any mode
        Path directory = Files.createTempDirectory("fencing-exec-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        List<String> lines = new ArrayList<>();
        lines.add("# written by fencing exec for one run, removed when it ends");
        String previous = environment.get(MARIADB_HOME) != null ? environment.get(MARIADB_HOME)
                : environment.get(MYSQL_HOME);
        if (previous != null && !previous.isBlank() && Files.isRegularFile(Path.of(previous, "my.cnf"))) {
            lines.add("!include " + Path.of(previous, "my.cnf").toAbsolutePath());
        }
        lines.add("[client]");
        lines.add("init-command=" + initCommand(resource, token));
        Path file = directory.resolve("my.cnf");
        // the clients ignore a world-writable option file; this one is the owner's only
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(file, lines);
        return new ClientOptionFile(directory);
    }

    /** The statement the clients run when they connect (and again when they reconnect). */
    static String initCommand(String resource, long token) {
        return "SET " + MariaDbEnforceSql.RESOURCE_VARIABLE + "='" + resource + "', " + MariaDbEnforceSql.TOKEN_VARIABLE
                + "=" + token;
    }

    /** The directory to name in {@code MARIADB_HOME} and {@code MYSQL_HOME}. */
    Path directory() {
        return directory;
    }

    /** Removes the file and its directory; quietly, since the run is over either way. */
    void delete() {
        try {
            Files.deleteIfExists(directory.resolve("my.cnf"));
            Files.deleteIfExists(directory);
        } catch (IOException ignored) {
            // a temporary directory left behind holds only a token that is no longer current once the lease is gone
        }
    }
}
