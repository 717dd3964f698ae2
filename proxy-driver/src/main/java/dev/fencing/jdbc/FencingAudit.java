package dev.fencing.jdbc;

import dev.fencing.jdbc.audit.AuditLog;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the fence refused in this JVM, or in audit mode ({@code fencing.mode=audit}) would have refused: each
 * statement text (literals and parameters never kept) with the reason, the SQLState the refusal has, where the
 * application sent it from, and how often. Connections in audit mode, or with {@code fencing.audit.file} set,
 * also write this report at JVM exit.
 */
public final class FencingAudit {
    private FencingAudit() {
    }

    /** Everything recorded since the JVM started or since the last {@link #reset()}. */
    public static Report report() {
        return AuditLog.snapshot();
    }

    /**
     * Where connections in audit mode that set no {@code fencing.audit.file} write the report at JVM exit (by
     * default {@code fencing-audit.json} in the working directory). {@link dev.fencing.jdbc.junit.FencingExtension}
     * sets it to its own whole-run report, so application code under test that opens its own audit-mode
     * connections adds to that report instead of leaving a file in the project root.
     */
    public static void defaultReportFile(Path file) {
        AuditLog.defaultReportFile(Objects.requireNonNull(file, "file"));
    }

    /** Forgets everything recorded so far. */
    public static void reset() {
        AuditLog.reset();
    }

    /**
     * One statement text refused for one reason.
     *
     * @param sql       the statement without literal values ({@code ?} instead), or the JDBC call (for {@code unwrap})
     * @param reason    why, the same words for every refusal of the kind
     * @param sqlState  the SQLState the refusal has (see {@link FencingSqlState})
     * @param resource  the resource the statement was fenced for, or {@code null} when none applies
     * @param refused   {@code true} when the caller got the exception (enforce mode), {@code false} when the
     *                  statement ran unguarded instead (audit mode)
     * @param count     how many times
     * @param callSites where the application sent it from: the first stack frame outside the driver, JDBC
     *                  frameworks and pools, up to five distinct ones
     */
    public record Finding(String sql, String reason, String sqlState, String resource, boolean refused, long count,
                          List<String> callSites) {
        public Finding {
            callSites = List.copyOf(callSites);
        }

        /** What happened to the statement, in words. */
        public String outcome() {
            return refused ? "refused" : "ran unguarded (audit mode)";
        }

        boolean sameStatement(Finding other) {
            return refused == other.refused && sql.equals(other.sql) && reason.equals(other.reason)
                    && sqlState.equals(other.sqlState);
        }
    }

    /**
     * A snapshot of the findings, most frequent first.
     *
     * @param unlisted refusals of statements not listed because the report already holds its maximum of distinct
     *                 statements
     */
    public record Report(List<Finding> findings, long unlisted) {
        public Report {
            List<Finding> sorted = new ArrayList<>(findings);
            sorted.sort(Comparator.comparingLong(Finding::count).reversed().thenComparing(Finding::sql));
            findings = List.copyOf(sorted);
        }

        /** How many refusals (or would-be refusals) in all. */
        public long total() {
            long total = unlisted;
            for (Finding finding : findings) {
                total += finding.count();
            }
            return total;
        }

        public boolean isEmpty() {
            return total() == 0;
        }

        /** What was recorded after {@code earlier} was taken (counts are the differences). */
        public Report since(Report earlier) {
            Map<String, List<Finding>> before = new HashMap<>();
            for (Finding finding : earlier.findings) {
                before.computeIfAbsent(finding.sql(), k -> new ArrayList<>()).add(finding);
            }
            List<Finding> newer = new ArrayList<>();
            for (Finding finding : findings) {
                long count = finding.count();
                for (Finding old : before.getOrDefault(finding.sql(), List.of())) {
                    if (old.sameStatement(finding)) {
                        count -= old.count();
                    }
                }
                if (count > 0) {
                    newer.add(new Finding(finding.sql(), finding.reason(), finding.sqlState(), finding.resource(),
                            finding.refused(), count, finding.callSites()));
                }
            }
            return new Report(newer, Math.max(0, unlisted - earlier.unlisted));
        }

        /** The report as JSON: {@code total}, {@code distinct}, {@code unlisted} and the {@code findings}. */
        public String toJson() {
            StringBuilder json = new StringBuilder(256 + findings.size() * 256);
            json.append("{\n  \"generatedAt\": ").append(quote(Instant.now().toString()))
                    .append(",\n  \"total\": ").append(total())
                    .append(",\n  \"distinct\": ").append(findings.size())
                    .append(",\n  \"unlisted\": ").append(unlisted)
                    .append(",\n  \"findings\": [");
            for (int i = 0; i < findings.size(); i++) {
                Finding f = findings.get(i);
                json.append(i == 0 ? "\n" : ",\n")
                        .append("    {\"sql\": ").append(quote(f.sql()))
                        .append(", \"reason\": ").append(quote(f.reason()))
                        .append(", \"sqlState\": ").append(quote(f.sqlState()))
                        .append(", \"resource\": ").append(f.resource() == null ? "null" : quote(f.resource()))
                        .append(", \"outcome\": ").append(quote(f.refused() ? "refused" : "ran-unguarded"))
                        .append(", \"count\": ").append(f.count())
                        .append(", \"callSites\": [");
                for (int c = 0; c < f.callSites().size(); c++) {
                    json.append(c == 0 ? "" : ", ").append(quote(f.callSites().get(c)));
                }
                json.append("]}");
            }
            return json.append(findings.isEmpty() ? "]\n}\n" : "\n  ]\n}\n").toString();
        }

        /**
         * The report's first line, the same on stderr at exit and in the summary: how many statements enforce mode
         * refuses, and of those how many ran unguarded (audit mode) and how many were refused.
         */
        public String headline() {
            if (isEmpty()) {
                return "fencing audit: no statement was refused, and none would be";
            }
            long unguarded = 0;
            for (Finding finding : findings) {
                unguarded += finding.refused() ? 0 : finding.count();
            }
            return "fencing audit: " + total() + " statements that enforce mode refuses (" + findings.size()
                    + " distinct): " + unguarded + " ran unguarded in audit mode, " + (total() - unguarded - unlisted)
                    + " were refused";
        }

        /** What to do about each of the fence's refusals, for the summary's last paragraph. */
        private static final Map<String, String> HOW_TO_FIX = Map.of(
                FencingSqlState.INVALID_TOKEN, "the code that writes holds no token: run it inside"
                        + " Fencing.scope(resource, token), or give the connection fencing.token, fencing.token.file"
                        + " or the FENCING_TOKEN variable; name the resource it owns with fencing.resource ('default'"
                        + " is a placeholder)",
                FencingSqlState.STALE_TOKEN, "a newer owner has written: this owner lost its lease and must stop"
                        + " (in tests: each owner needs its own, increasing token)",
                FencingSqlState.TOKEN_NOT_ISSUED, "the token is above what the issuer handed out: take tokens from"
                        + " the issuer (fencing acquire/exec) or set fencing.issuer.check=off for an external"
                        + " coordinator",
                FencingSqlState.CANNOT_GUARD, "the statement could write but cannot be guarded (the reason says"
                        + " why): rewrite it as plain SQL, or run it on its own, see docs/limits.md",
                FencingSqlState.PROTECTED, "the statement writes the fence's own tables: only the fence and the"
                        + " issuer may (fencing acquire --revoke raises a mark)",
                FencingSqlState.CONFIGURATION, "a setting or the fence's tables: run 'fencing init' or connect once"
                        + " with fencing.schema=create, and check the message");

        /** The report for people: one paragraph per statement, most frequent first, then what to do. */
        public String summary() {
            if (isEmpty()) {
                return headline() + ".\n";
            }
            StringBuilder text = new StringBuilder(headline()).append(".\n");
            for (Finding f : findings) {
                text.append('\n').append(String.format("%6dx %s %s [%s]%n", f.count(), f.sqlState(), f.reason(),
                        f.outcome()));
                text.append("         ").append(f.sql()).append('\n');
                for (String site : f.callSites()) {
                    text.append("         at ").append(site).append('\n');
                }
            }
            if (unlisted > 0) {
                text.append('\n').append(unlisted).append(" more, of statements not listed: the report holds at most ")
                        .append(findings.size()).append(" distinct statements.\n");
            }
            java.util.Set<String> states = new java.util.TreeSet<>();
            findings.forEach(f -> states.add(f.sqlState()));
            text.append("\nHow to fix:\n");
            for (String state : states) {
                text.append("  ").append(state).append(": ").append(HOW_TO_FIX.getOrDefault(state,
                        "see the README's SQLStates and docs/limits.md")).append('\n');
            }
            return text.toString();
        }

        /** Writes {@link #toJson()} to {@code jsonFile} and {@link #summary()} beside it (see {@link #summaryFile}). */
        public void write(Path jsonFile) throws IOException {
            Path parent = jsonFile.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(jsonFile, toJson(), StandardCharsets.UTF_8);
            Files.writeString(summaryFile(jsonFile), summary(), StandardCharsets.UTF_8);
        }

        /** Where {@link #write} puts the summary: the JSON file's name with {@code .txt} instead of {@code .json}. */
        public static Path summaryFile(Path jsonFile) {
            String name = Objects.requireNonNull(jsonFile.getFileName(), "report file").toString();
            String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
            return jsonFile.resolveSibling(base + ".txt");
        }

        private static String quote(String value) {
            StringBuilder out = new StringBuilder(value.length() + 2).append('"');
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                switch (c) {
                    case '"':
                        out.append("\\\"");
                        break;
                    case '\\':
                        out.append("\\\\");
                        break;
                    case '\n':
                        out.append("\\n");
                        break;
                    case '\r':
                        out.append("\\r");
                        break;
                    case '\t':
                        out.append("\\t");
                        break;
                    default:
                        if (c < 0x20) {
                            out.append(String.format("\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                }
            }
            return out.append('"').toString();
        }
    }
}
