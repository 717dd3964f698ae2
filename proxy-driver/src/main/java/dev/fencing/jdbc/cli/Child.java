package dev.fencing.jdbc.cli;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The command {@code fencing exec} runs: waits for it, and stops it with SIGTERM, then SIGKILL after a grace period. */
final class Child {
    private final Process process;
    private final Duration grace;

    Child(Process process, Duration grace) {
        this.process = process;
        this.grace = grace;
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
     * Sends SIGTERM to the command and everything it started, waits up to the grace period, then sends SIGKILL to
     * whatever is left, and waits for the command to end.
     */
    synchronized void stop() {
        if (!process.isAlive()) {
            return;
        }
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        descendants.forEach(ProcessHandle::destroy);
        boolean ended = false;
        try {
            ended = process.waitFor(grace.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!ended) {
            process.destroyForcibly();
        }
        descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
