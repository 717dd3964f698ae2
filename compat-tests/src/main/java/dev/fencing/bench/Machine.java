package dev.fencing.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the harness ran on, for the report: CPU, cores, OS, JVM and the load average other work put on it. */
record Machine(String cpu, int cores, String os, String jvm, double loadAtStart) {
    static Machine describe() {
        return new Machine(cpuModel(), Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"), loadAverage());
    }

    /** The one-minute load average, or -1 where the platform has none. */
    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            return System.getProperty("os.arch");
        }
        return System.getProperty("os.arch");
    }
}
