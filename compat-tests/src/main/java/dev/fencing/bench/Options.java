package dev.fencing.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The harness's command line: {@code --name=value} options, a size preset ({@code smoke} or {@code full}) that any
 * single option overrides. A bad option is an {@link IllegalArgumentException} with a one-line message.
 */
record Options(String url, int rows, double warmupSeconds, double seconds, int rounds, List<Integer> threads,
               Set<Workload> workloads, boolean epochChange, int epochChanges, Path out) {

    static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    static final String USAGE = String.join("\n",
            "usage: SideBySide [--size=smoke|full] [--url=RAW_JDBC_URL] [--rows=N] [--warmup=SECONDS]",
            "                  [--seconds=SECONDS] [--rounds=N] [--threads=1,4,16] [--workloads=update,tpcb,read,batch]",
            "                  [--epoch-change=true|false] [--epoch-changes=N] [--out=DIRECTORY]",
            "  --url      the database, as the raw driver's URL; the fenced side is jdbc:fencing: + the same URL",
            "             (default " + DEFAULT_URL + "; jdbc:h2:mem:bench for the embedded variant)",
            "  --size     smoke: a few seconds, to keep the harness working; full: the numbers of docs/performance.md (default full)",
            "  --seconds  length of one measured pass of one driver; --rounds passes per driver, alternating",
            "  --out      where side-by-side.csv and side-by-side.json are written (default target/side-by-side)",
            "  -Dbench.fenced.settings=fencing.guard=session  more settings for the fenced side, comma-separated");

    static Options parse(String... args) {
        String size = "full";
        for (String arg : args) {
            if (arg.startsWith("--size=")) {
                size = arg.substring("--size=".length());
            }
        }
        Options options;
        switch (size) {
            case "smoke":
                options = new Options(DEFAULT_URL, 2_000, 0.1, 0.15, 1, List.of(1, 2),
                        EnumSet.allOf(Workload.class), true, 2, Path.of("target", "side-by-side"));
                break;
            case "full":
                options = new Options(DEFAULT_URL, 100_000, 3, 5, 3, List.of(1, 4, 16),
                        EnumSet.allOf(Workload.class), true, 10, Path.of("target", "side-by-side"));
                break;
            default:
                throw new IllegalArgumentException("--size must be smoke or full, not '" + size + "'");
        }
        for (String arg : args) {
            options = options.with(arg);
        }
        return options;
    }

    private Options with(String arg) {
        int eq = arg.indexOf('=');
        if (!arg.startsWith("--") || eq < 0) {
            throw new IllegalArgumentException("expected --name=value, got '" + arg + "'");
        }
        String name = arg.substring(2, eq);
        String value = arg.substring(eq + 1);
        switch (name) {
            case "size":
                return this;
            case "url":
                if (!value.startsWith("jdbc:") || value.startsWith("jdbc:fencing:")) {
                    throw new IllegalArgumentException("--url must be the raw driver's JDBC URL (jdbc:..., not jdbc:fencing:...)");
                }
                return new Options(value, rows, warmupSeconds, seconds, rounds, threads, workloads, epochChange,
                        epochChanges, out);
            case "rows":
                return new Options(url, positive(name, value), warmupSeconds, seconds, rounds, threads, workloads,
                        epochChange, epochChanges, out);
            case "warmup":
                return new Options(url, rows, seconds(name, value, true), seconds, rounds, threads, workloads,
                        epochChange, epochChanges, out);
            case "seconds":
                return new Options(url, rows, warmupSeconds, seconds(name, value, false), rounds, threads, workloads,
                        epochChange, epochChanges, out);
            case "rounds":
                return new Options(url, rows, warmupSeconds, seconds, positive(name, value), threads, workloads,
                        epochChange, epochChanges, out);
            case "threads":
                List<Integer> counts = new ArrayList<>();
                for (String each : value.split(",")) {
                    counts.add(positive(name, each.trim()));
                }
                return new Options(url, rows, warmupSeconds, seconds, rounds, List.copyOf(counts), workloads,
                        epochChange, epochChanges, out);
            case "workloads":
                Set<Workload> chosen = EnumSet.noneOf(Workload.class);
                for (String each : value.split(",")) {
                    chosen.add(Workload.named(each.trim()));
                }
                return new Options(url, rows, warmupSeconds, seconds, rounds, threads, chosen, epochChange,
                        epochChanges, out);
            case "epoch-change":
                if (!value.equals("true") && !value.equals("false")) {
                    throw new IllegalArgumentException("--epoch-change must be true or false, not '" + value + "'");
                }
                return new Options(url, rows, warmupSeconds, seconds, rounds, threads, workloads,
                        Boolean.parseBoolean(value), epochChanges, out);
            case "epoch-changes":
                return new Options(url, rows, warmupSeconds, seconds, rounds, threads, workloads, epochChange,
                        positive(name, value), out);
            case "out":
                return new Options(url, rows, warmupSeconds, seconds, rounds, threads, workloads, epochChange,
                        epochChanges, Path.of(value));
            default:
                throw new IllegalArgumentException("unknown option --" + name);
        }
    }

    int maxThreads() {
        return threads.stream().mapToInt(Integer::intValue).max().orElse(1);
    }

    /** A short name of the database for the report: {@code postgresql}, {@code h2}, ... */
    String database() {
        String rest = url.substring("jdbc:".length());
        return rest.substring(0, rest.indexOf(':') < 0 ? rest.length() : rest.indexOf(':')).toLowerCase(Locale.ROOT);
    }

    private static int positive(String name, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--" + name + " must be a positive whole number, not '" + value + "'");
    }

    private static double seconds(String name, String value, boolean zeroAllowed) {
        try {
            double s = Double.parseDouble(value);
            if (s > 0 || zeroAllowed && s == 0) {
                return s;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--" + name + " must be a number of seconds, not '" + value + "'");
    }
}
