package dev.fencing.torture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The database a torture run writes to, and what it lets the run do to it: kill its own backends, restart the
 * server or kill the database process.
 */
abstract class Target implements AutoCloseable {
    abstract String name();

    abstract boolean postgres();

    /** Whether the target is a MariaDB (or MySQL) server. */
    boolean mariadb() {
        return false;
    }

    /** The underlying driver's URL for setup, the monitor and the final read. */
    abstract String rawUrl();

    /** The underlying driver's URL for the run's clients; on PostgreSQL it marks their sessions for the faults. */
    abstract String clientUrl();

    /** The application name that marks the run's client sessions, or {@code null} where sessions are not visible. */
    String applicationName() {
        return null;
    }

    /** Whether {@link #restart} stops the database process and starts it again on the same files. */
    boolean canRestart() {
        return false;
    }

    /** Stops (or kills) the database process and starts it again; returns a description of what was done. */
    String restart(Random random) throws Exception {
        throw new UnsupportedOperationException(name() + " cannot be restarted by the test");
    }

    /** Session settings that make lock waits give up quickly, and the statements that undo them. */
    String[] tightTimeouts(Random random) {
        if (mariadb()) {
            return new String[] {random.nextBoolean() ? "SET SESSION innodb_lock_wait_timeout = 0"
                    : "SET SESSION max_statement_time = 0.04"};
        }
        return postgres()
                ? new String[] {random.nextBoolean() ? "SET lock_timeout = '20ms'" : "SET statement_timeout = '40ms'"}
                : new String[] {"SET LOCK_TIMEOUT 20"};
    }

    String[] resetTimeouts() {
        if (mariadb()) {
            return new String[] {"SET SESSION innodb_lock_wait_timeout = DEFAULT", "SET SESSION max_statement_time = DEFAULT"};
        }
        return postgres() ? new String[] {"SET lock_timeout = DEFAULT", "SET statement_timeout = DEFAULT"}
                : new String[] {"SET LOCK_TIMEOUT 10000"};
    }

    @Override
    public void close() throws Exception {
    }

    /** Deletes a directory the test created, with everything in it. */
    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** A name unique on the server for this JVM: the run's table prefix. */
    static String unique(String prefix) {
        return prefix + "_" + ProcessHandle.current().pid() + "_" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    }
}
