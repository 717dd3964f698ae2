package dev.fencing.jdbc.internal;

import dev.fencing.jdbc.FencingAudit;
import dev.fencing.jdbc.FencingRefusedException;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The JVM-wide record behind {@link FencingAudit}: counts refusals per (statement text, reason, outcome), keeps
 * where the application sent each from, and writes the report at exit to the files connections asked for.
 * Bounded: at most {@value #MAX_DISTINCT} distinct statements and {@value #MAX_CALL_SITES} call sites each.
 */
public final class AuditLog {
    static final int MAX_DISTINCT = 1000;
    static final int MAX_CALL_SITES = 5;

    /**
     * Packages whose frames are not the application's call site: this driver, the JDK, and the JDBC frameworks,
     * pools and drivers that sit between an application and the connection.
     */
    private static final String[] FRAMEWORKS = {
        "dev.fencing.jdbc.internal.", "dev.fencing.shaded.", "java.", "javax.", "jdk.",
        "sun.", "com.sun.", "jakarta.", "com.zaxxer.hikari.", "org.springframework.", "org.hibernate.",
        "org.apache.ibatis.", "org.mybatis.", "org.jooq.", "org.flywaydb.", "org.liquibase.", "liquibase.",
        "org.apache.commons.dbcp", "org.apache.commons.dbutils.", "org.apache.tomcat.jdbc.", "com.mchange.",
        "org.jdbi.", "org.sql2o.", "org.h2.", "org.postgresql.", "org.mariadb.", "com.mysql.", "oracle.jdbc.",
        "com.microsoft.sqlserver.", "org.eclipse.persistence.", "net.bytebuddy.",
    };
    /** Generated proxy classes (Spring, Hibernate, Byte Buddy) that stand in front of application classes. */
    private static final String[] GENERATED = {"$$SpringCGLIB$$", "$$EnhancerBySpringCGLIB$$", "$HibernateProxy$",
        "$ByteBuddy$"};
    private static final StackWalker WALKER = StackWalker.getInstance();

    private record Key(String sql, String reason, String sqlState, boolean refused) {
    }

    private static final class Entry {
        final String resource;
        final AtomicLong count = new AtomicLong();
        final List<String> callSites = new ArrayList<>(MAX_CALL_SITES);

        Entry(String resource) {
            this.resource = resource;
        }

        synchronized void addCallSite(String site) {
            if (callSites.size() < MAX_CALL_SITES && !callSites.contains(site)) {
                callSites.add(site);
            }
        }

        synchronized List<String> callSites() {
            return List.copyOf(callSites);
        }
    }

    private static final Map<Key, Entry> ENTRIES = new ConcurrentHashMap<>();
    private static final AtomicLong UNLISTED = new AtomicLong();
    private static final Set<Path> EXIT_FILES = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOK = new AtomicBoolean();

    private AuditLog() {
    }

    /** Counts one refusal of {@code sql} (already without literals); {@code refused}: the caller got the exception. */
    static void record(FencingRefusedException refusal, String sql, boolean refused) {
        Key key = new Key(sql, refusal.getReason(), refusal.getSQLState(), refused);
        Entry entry = ENTRIES.get(key);
        if (entry == null) {
            if (ENTRIES.size() >= MAX_DISTINCT) {
                UNLISTED.incrementAndGet();
                return;
            }
            entry = ENTRIES.computeIfAbsent(key, k -> new Entry(refusal.getResource()));
        }
        entry.count.incrementAndGet();
        entry.addCallSite(callSite());
    }

    /** The first frame of the calling thread outside the driver, the JDK and JDBC frameworks. */
    static String callSite() {
        return WALKER.walk(frames -> frames
                .filter(frame -> isApplication(frame.getClassName()))
                .findFirst()
                .map(frame -> frame.getClassName() + "." + frame.getMethodName() + "(" + frame.getFileName() + ":"
                        + frame.getLineNumber() + ")")
                .orElse("(no application frame)"));
    }

    static boolean isApplication(String className) {
        for (String prefix : FRAMEWORKS) {
            if (className.startsWith(prefix)) {
                return false;
            }
        }
        for (String marker : GENERATED) {
            if (className.contains(marker)) {
                return false;
            }
        }
        return true;
    }

    /** A snapshot of everything recorded. */
    public static FencingAudit.Report snapshot() {
        List<FencingAudit.Finding> findings = new ArrayList<>(ENTRIES.size());
        ENTRIES.forEach((key, entry) -> findings.add(new FencingAudit.Finding(key.sql(), key.reason(),
                key.sqlState(), entry.resource, key.refused(), entry.count.get(), entry.callSites())));
        return new FencingAudit.Report(findings, UNLISTED.get());
    }

    public static void reset() {
        ENTRIES.clear();
        UNLISTED.set(0);
    }

    /** Writes the report to {@code file} (and its summary beside it) when the JVM exits. */
    static void writeAtExit(Path file) {
        EXIT_FILES.add(file.toAbsolutePath().normalize());
        if (HOOK.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(AuditLog::writeExitReports, "fencing-audit-report"));
        }
    }

    private static void writeExitReports() {
        FencingAudit.Report report = snapshot();
        for (Path file : EXIT_FILES) {
            try {
                report.write(file);
                System.err.println(report.headline() + "; report written to " + file + " and "
                        + FencingAudit.Report.summaryFile(file));
            } catch (IOException | RuntimeException e) {
                System.err.println("fencing audit: cannot write the report to " + file + ": " + e);
            }
        }
    }
}
