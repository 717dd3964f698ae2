package dev.fencing.jdbc.cli;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The command {@code fencing exec} runs, in a session (and so a process group) of its own, with a watchdog: stops
 * everything in that group with SIGTERM, then SIGKILL after a grace period, and when {@code exec} itself dies
 * (even by SIGKILL) the watchdog does the same. Linux only: needs {@code setsid} and {@code mkfifo}, and reads
 * {@code /proc}.
 *
 * <p>The command is started as {@code setsid sh -c WRAPPER}: {@code setsid} makes the shell the leader of a new
 * session and process group (it does not fork, since a JVM's child never leads a group), so the group's id is the
 * child's PID; the wrapper opens the read end of a FIFO whose only writer is this JVM, starts the watchdog in the
 * background, and replaces itself with the command. The watchdog blocks reading the FIFO; the kernel closes the
 * write end when this JVM ends, however it ends, and the watchdog then signals its own group.
 */
final class Child {
    private static final String WRAPPER = String.join("\n",
            "exec 3<\"$1\" || exit 127",
            "rm -f \"$1\"; rmdir \"${1%/*}\" 2>/dev/null",
            "grace=$2; shift 2",
            "(trap '' INT HUP; read -r _ <&3; trap '' TERM; kill -s TERM 0; sleep \"$grace\"; kill -s KILL 0)"
                    + " </dev/null >/dev/null 2>&1 &",
            "exec \"$@\" 3<&-");
    private static final long POLL_MILLIS = 20;
    /** How long to wait for SIGKILL to take effect before giving up on a process (stuck in the kernel, say). */
    private static final Duration KILL_WAIT = Duration.ofSeconds(5);

    private final Process process;
    private final FileChannel watchdog;
    private final Duration grace;
    private boolean stopped;

    private Child(Process process, FileChannel watchdog, Duration grace) {
        this.process = process;
        this.watchdog = watchdog;
        this.grace = grace;
    }

    /** Starts {@code command} with {@code environment} added, in its own session, watched as described above. */
    static Child start(List<String> command, Map<String, String> environment, Duration grace) throws IOException {
        String setsid = onPath("setsid");
        Path dir = Files.createTempDirectory("fencing-exec");
        Path fifo = dir.resolve("watchdog");
        FileChannel watchdog = null;
        try {
            Process mkfifo = new ProcessBuilder(onPath("mkfifo"), fifo.toString()).inheritIO().start();
            if (!mkfifo.waitFor(10, TimeUnit.SECONDS) || mkfifo.exitValue() != 0) {
                throw new IOException("mkfifo " + fifo + " failed");
            }
            // Read and write: opening a FIFO so never blocks, and this JVM stays its only writer.
            watchdog = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
            List<String> argv = new ArrayList<>(List.of(setsid, "sh", "-c", WRAPPER, "fencing-exec",
                    fifo.toString(), String.format("%d.%03d", grace.toMillis() / 1000, grace.toMillis() % 1000)));
            argv.addAll(command);
            ProcessBuilder builder = new ProcessBuilder(argv).inheritIO();
            builder.environment().putAll(environment);
            return new Child(builder.start(), watchdog, grace);
        } catch (IOException | RuntimeException e) {
            if (watchdog != null) {
                watchdog.close();
            }
            Files.deleteIfExists(fifo);
            Files.deleteIfExists(dir);
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting", e);
        }
    }

    /** Waits up to {@code timeout}; true when the command has ended. */
    boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            return true;
        }
    }

    int exitCode() {
        return process.exitValue();
    }

    /**
     * Sends SIGTERM to the command's process group (the command, everything it started that did not leave the
     * group, and the watchdog), waits up to the grace period for all of them to end, sends SIGKILL to whatever is
     * left, and waits for the command to end. Also stops what the command left running after it ended by itself.
     */
    synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        signalGroup("TERM");
        if (!awaitGroupGone(grace)) {
            signalGroup("KILL");
            awaitGroupGone(KILL_WAIT);
        }
        try {
            process.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            watchdog.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // closing the write end of the watchdog's FIFO cannot fail in a way that matters: the group is gone
        }
    }

    private void signalGroup(String signal) {
        try {
            new ProcessBuilder("sh", "-c", "kill -s " + signal + " -- -" + process.pid() + " 2>/dev/null")
                    .inheritIO().start().waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            if (signal.equals("KILL")) {
                process.destroyForcibly();
            } else {
                process.destroy();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean awaitGroupGone(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (groupAlive()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Whether a process of the command's group still runs (zombies do not: they only wait to be reaped). */
    private boolean groupAlive() {
        long group = process.pid();
        try (DirectoryStream<Path> all = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path each : all) {
                String stat;
                try {
                    stat = Files.readString(each.resolve("stat"));
                } catch (IOException ended) {
                    continue;
                }
                // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so count from the last ')'
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ", 4);
                if (fields.length >= 3 && !fields[0].equals("Z") && !fields[0].equals("X")
                        && Long.parseLong(fields[2]) == group) {
                    return true;
                }
            }
            return false;
        } catch (IOException | RuntimeException noProc) {
            return process.isAlive();
        }
    }

    private static String onPath(String program) throws IOException {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : (path + ":/usr/bin:/bin").split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new IOException("fencing exec needs " + program + " (util-linux and coreutils), not found on PATH");
    }
}
