package dev.fencing.jdbc.audit;

import dev.fencing.jdbc.FencingProperty;
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
        "dev.fencing.jdbc.wrapper.", "dev.fencing.jdbc.guard.", "dev.fencing.jdbc.config.", "dev.fencing.jdbc.audit.",
        "dev.fencing.shaded.",
        "java.", "javax.", "jdk.",
        "sun.", "com.sun.", "jakarta.", "com.zaxxer.hikari.", "org.springframework.", "org.hibernate.",
        "org.apache.ibatis.", "org.mybatis.", "org.jooq.", "org.flywaydb.", "org.liquibase.", "liquibase.",
        "org.apache.commons.dbcp", "org.apache.commons.dbutils.", "org.apache.tomcat.jdbc.", "com.mchange.",
        "org.jdbi.", "org.sql2o.", "org.h2.", "org.postgresql.", "org.mariadb.", "com.mysql.", "oracle.jdbc.",
        "com.microsoft.sqlserver.", "org.eclipse.persistence.", "net.bytebuddy.", "org.junit.",
        "org.apache.maven.surefire.",
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

    /** At most this many frames in one call site: the data-access layer's and the first caller outside it. */
    static final int MAX_CHAIN = 8;
    /** Class names (before any {@code $}) that mark a class of the data-access layer. */
    private static final String[] DATA_ACCESS_SUFFIXES = {"Dao", "DAO", "Repository", "Repo", "Mapper", "Gateway"};
    /** Package names that mark a class of the data-access layer. */
    private static final String[] DATA_ACCESS_PACKAGES = {".dao.", ".daos.", ".repository.", ".repositories.",
        ".persistence.", ".dataaccess."};

    /**
     * Where the application sent the statement from: the first frame of the calling thread outside the driver, the
     * JDK and JDBC frameworks (the code that talks to JDBC), followed by its callers for as long as they are in the
     * data-access layer, up to and including the first caller outside it (the code that should hold the token's
     * scope): {@code InvoiceDao.issue(InvoiceDao.java:30) <- LateFeeJob.run(LateFeeJob.java:12)}. A caller is in
     * the data-access layer when it is the first frame's class, or its class is named like a DAO ({@code *Dao},
     * {@code *Repository}, {@code *Mapper}, ...) or sits in such a package ({@code .dao.}, {@code .repository.},
     * {@code .persistence.}, ...); frameworks in between (Spring's proxies, MyBatis) are skipped.
     */
    static String callSite() {
        return WALKER.walk(frames -> {
            StringBuilder chain = new StringBuilder();
            String first = null;
            int length = 0;
            for (StackWalker.StackFrame frame : (Iterable<StackWalker.StackFrame>) frames::iterator) {
                String type = frame.getClassName();
                if (!isApplication(type)) {
                    continue;
                }
                if (first != null) {
                    chain.append(" <- ");
                }
                chain.append(type).append('.').append(frame.getMethodName()).append('(').append(frame.getFileName())
                        .append(':').append(frame.getLineNumber()).append(')');
                length++;
                if (first == null) {
                    first = type;
                } else if (!inDataAccessLayer(type, first)) {
                    break;
                }
                if (length == MAX_CHAIN) {
                    break;
                }
            }
            return first == null ? "(no application frame)" : chain.toString();
        });
    }

    /** Whether {@code type} is in the data-access layer whose first frame (the one calling JDBC) is {@code first}. */
    static boolean inDataAccessLayer(String type, String first) {
        boolean anonymousInFirst = type.startsWith(first + "$") && Character.isDigit(type.charAt(first.length() + 1));
        if (type.equals(first) || anonymousInFirst) {
            return true;
        }
        String simple = simpleName(type);
        for (String suffix : DATA_ACCESS_SUFFIXES) {
            if (simple.endsWith(suffix)) {
                return true;
            }
        }
        for (String name : DATA_ACCESS_PACKAGES) {
            if (type.contains(name)) {
                return true;
            }
        }
        return false;
    }

    /** The class's own name: {@code a.b.Outer$InvoiceDao$1} is {@code InvoiceDao}. */
    private static String simpleName(String type) {
        String name = type;
        int cut;
        while ((cut = name.lastIndexOf('$')) > 0 && cut + 1 < name.length()
                && name.substring(cut + 1).chars().allMatch(Character::isDigit)) {
            name = name.substring(0, cut);
        }
        return name.substring(Math.max(name.lastIndexOf('$'), name.lastIndexOf('.')) + 1);
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

    /** Where connections that set no {@code fencing.audit.file} write at exit; see {@link #defaultReportFile}. */
    private static volatile Path defaultFile = Path.of(FencingProperty.DEFAULT_AUDIT_FILE);
    /** Whether a connection asked for the report at the default place. */
    private static volatile boolean defaultWanted;

    /**
     * Where audit-mode connections without {@code fencing.audit.file} write the report at exit, for the whole JVM
     * (the JUnit extension points it at its own report, so no test run leaves a file in the project root).
     */
    public static void defaultReportFile(Path file) {
        defaultFile = file;
    }

    /** Writes the report at exit to the default file as it is then (see {@link #defaultReportFile}). */
    static void writeAtExitToDefault() {
        defaultWanted = true;
        hook();
    }

    /** Writes the report to {@code file} (and its summary beside it) when the JVM exits. */
    static void writeAtExit(Path file) {
        EXIT_FILES.add(file.toAbsolutePath().normalize());
        hook();
    }

    private static void hook() {
        if (HOOK.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(AuditLog::writeExitReports, "fencing-audit-report"));
        }
    }

    private static void writeExitReports() {
        FencingAudit.Report report = snapshot();
        Set<Path> files = new java.util.LinkedHashSet<>(EXIT_FILES);
        if (defaultWanted) {
            files.add(defaultFile.toAbsolutePath().normalize());
        }
        for (Path file : files) {
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
