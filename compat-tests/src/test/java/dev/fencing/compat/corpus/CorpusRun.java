package dev.fencing.compat.corpus;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs a {@link Corpus} on {@link Twins}: every statement once through the underlying driver and once through the
 * fencing driver with a current token, outcomes compared (SPEC C8). The report gives the share of identical
 * outcomes per group and lists each difference.
 */
final class CorpusRun {
    /** One statement whose outcome differed. */
    record Difference(String group, String sql, Outcome raw, Outcome fenced) {
        @Override
        public String toString() {
            String line = sql.strip().replaceAll("\\s+", " ");
            String why = raw.result().equals(fenced.result()) ? "effect differs: raw " + raw.effect() + " / fenced "
                    + fenced.effect() : "raw: " + raw.result() + " / fenced: " + fenced.result();
            return "[" + group + "] " + (line.length() > 110 ? line.substring(0, 110) + "..." : line) + "\n      " + why;
        }
    }

    private final Map<String, int[]> perGroup = new LinkedHashMap<>();
    private final List<Difference> differences = new ArrayList<>();

    /**
     * @param prepared whether each statement runs through {@code prepareStatement(sql).execute()} rather than
     *                 {@code Statement.execute(sql)}
     */
    static CorpusRun run(Corpus corpus, Twins.Factory factory, boolean prepared) throws SQLException {
        CorpusRun run = new CorpusRun();
        for (Corpus.Group group : corpus.groups()) {
            int[] counts = new int[2];
            try (Twins twins = factory.open(group.name());
                 Statement raw = twins.raw().createStatement();
                 Statement fenced = twins.fenced().createStatement()) {
                Map<String, ObjectState> rawState = twins.snapshot(false);
                Map<String, ObjectState> fencedState = twins.snapshot(true);
                for (String sql : group.statements()) {
                    String rawResult = Outcome.run(twins.raw(), raw, sql, prepared);
                    Map<String, ObjectState> rawAfter = twins.snapshot(false);
                    String fencedResult = Outcome.run(twins.fenced(), fenced, sql, prepared);
                    Map<String, ObjectState> fencedAfter = twins.snapshot(true);
                    Outcome a = new Outcome(rawResult, ObjectState.changes(rawState, rawAfter));
                    Outcome b = new Outcome(fencedResult, ObjectState.changes(fencedState, fencedAfter));
                    rawState = rawAfter;
                    fencedState = fencedAfter;
                    counts[1]++;
                    if (a.sameAs(b)) {
                        counts[0]++;
                    } else {
                        run.differences.add(new Difference(group.name(), sql, a, b));
                    }
                }
            }
            run.perGroup.put(group.name(), counts);
        }
        return run;
    }

    int total() {
        return perGroup.values().stream().mapToInt(c -> c[1]).sum();
    }

    int identical() {
        return perGroup.values().stream().mapToInt(c -> c[0]).sum();
    }

    double percentIdentical() {
        return total() == 0 ? 0 : 100.0 * identical() / total();
    }

    List<Difference> differences() {
        return differences;
    }

    String report(String database) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "compatibility corpus, %s: %d of %d statements identical (%.1f%%)%n",
                database, identical(), total(), percentIdentical()));
        perGroup.forEach((group, c) -> out.append(String.format(Locale.ROOT, "  %-28s %4d/%-4d %6.1f%%%n", group,
                c[0], c[1], 100.0 * c[0] / c[1])));
        if (!differences.isEmpty()) {
            out.append("differences:\n");
            differences.forEach(d -> out.append("  ").append(d).append('\n'));
        }
        return out.toString();
    }
}
