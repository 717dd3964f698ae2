package dev.fencing.bench;

import dev.fencing.jdbc.FencedConnection;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/** The results of one harness run: a row per workload and thread count, printed as a table, CSV and JSON. */
public final class Report {
    /** One driver's numbers for one workload and thread count, over all its measured passes. */
    public record Side(double opsPerSecond, double p50Micros, double p99Micros, long operations,
                       double bytesPerOperation) {
        static Side of(List<Phase.Result> results) {
            long operations = 0;
            long nanos = 0;
            long bytes = 0;
            Latencies latencies = new Latencies();
            for (Phase.Result result : results) {
                operations += result.operations();
                nanos += result.elapsedNanos();
                bytes += result.allocatedBytes();
                latencies.addAll(result.latencies());
            }
            return new Side(operations * 1e9 / nanos, latencies.percentileMicros(50), latencies.percentileMicros(99),
                    operations, (double) bytes / operations);
        }
    }

    /** One workload at one thread count, both drivers. */
    public record Row(Workload workload, int threads, Side raw, Side fenced) {
        /** Fenced throughput over raw throughput, measured in the same run. */
        public double ratio() {
            return fenced.opsPerSecond() / raw.opsPerSecond();
        }

        public String workloadName() {
            return workload.key();
        }
    }

    private final Options options;
    private final Machine machine;
    private final List<Row> rows = new ArrayList<>();
    private final Instant started = Instant.now();
    private String database = "?";
    private EpochChange.Result epochChange;
    private double loadAtEnd;

    Report(Options options, Machine machine) {
        this.options = options;
        this.machine = machine;
    }

    void database(String version) {
        this.database = version;
    }

    void add(Row row) {
        rows.add(row);
    }

    void epochChange(EpochChange.Result result) {
        this.epochChange = result;
    }

    void finish(double load) {
        this.loadAtEnd = load;
    }

    public List<Row> rows() {
        return List.copyOf(rows);
    }

    public boolean measuredEpochChange() {
        return epochChange != null && epochChange.writes() > 0;
    }

    /** Proves the fenced side was fenced: its writes established the run's token as the resource's mark. */
    void checkFenced(DataSource fenced, String resource, long token) throws SQLException {
        try (Connection c = fenced.getConnection()) {
            long mark = c.unwrap(FencedConnection.class).readHighWaterMark(resource);
            if (mark != token) {
                throw new IllegalStateException("the fenced pool's writes did not go through the fence: mark of "
                        + resource + " is " + mark + ", expected " + token);
            }
        }
    }

    /** The results as a Markdown table, with the run's conditions above it. */
    public String table() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%s, %d rows, %s; %d x %.1f s per driver after %.1f s warm-up, alternating%n",
                database, options.rows(), machineLine(), options.rounds(), options.seconds(), options.warmupSeconds()));
        out.append(String.format(Locale.ROOT, "load average %.2f at start, %.2f at end%n%n", machine.loadAtStart(),
                loadAtEnd));
        out.append("| workload | threads | raw ops/s | fenced ops/s | fenced/raw | raw p50 µs | fenced p50 µs"
                + " | raw p99 µs | fenced p99 µs | raw KB/op | fenced KB/op |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            out.append(String.format(Locale.ROOT,
                    "| %s | %d | %.0f | %.0f | **%.3f** | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f |%n",
                    row.workload().title(), row.threads(), row.raw().opsPerSecond(), row.fenced().opsPerSecond(),
                    row.ratio(), row.raw().p50Micros(), row.fenced().p50Micros(), row.raw().p99Micros(),
                    row.fenced().p99Micros(), row.raw().bytesPerOperation() / 1024,
                    row.fenced().bytesPerOperation() / 1024));
        }
        if (epochChange != null) {
            out.append(String.format(Locale.ROOT, "%nEpoch change with %d writers busy (%d changes): first write with"
                            + " the new token (the advance) p50 %.0f µs, max %.0f µs; back at full speed after it p50"
                            + " %.0f µs, max %.0f µs (10 ms resolution); %d old-epoch writes refused%n",
                    epochChange.threads(), epochChange.advanceMicros().length,
                    EpochChange.Result.median(epochChange.advanceMicros()),
                    EpochChange.Result.max(epochChange.advanceMicros()),
                    EpochChange.Result.median(epochChange.fullSpeedMicros()),
                    EpochChange.Result.max(epochChange.fullSpeedMicros()), epochChange.refusedOldEpochWrites()));
        }
        return out.toString();
    }

    private String machineLine() {
        return machine.cores() + " cores " + machine.cpu() + ", " + machine.os() + ", " + machine.jvm();
    }

    /** Writes {@code side-by-side.csv} and {@code side-by-side.json} into {@code directory}; returns their paths. */
    public String write(Path directory) throws IOException {
        Files.createDirectories(directory);
        Path csv = directory.resolve("side-by-side.csv");
        Path json = directory.resolve("side-by-side.json");
        Files.writeString(csv, csv(), StandardCharsets.UTF_8);
        Files.writeString(json, json(), StandardCharsets.UTF_8);
        return csv + ", " + json;
    }

    String csv() {
        StringBuilder out = new StringBuilder("database,workload,threads,raw_ops_per_s,fenced_ops_per_s,ratio,"
                + "raw_p50_us,fenced_p50_us,raw_p99_us,fenced_p99_us,raw_ops,fenced_ops,raw_bytes_per_op,fenced_bytes_per_op\n");
        for (Row row : rows) {
            out.append(String.format(Locale.ROOT, "%s,%s,%d,%.1f,%.1f,%.4f,%.1f,%.1f,%.1f,%.1f,%d,%d,%.0f,%.0f%n",
                    options.database(), row.workload().key(), row.threads(), row.raw().opsPerSecond(),
                    row.fenced().opsPerSecond(), row.ratio(), row.raw().p50Micros(), row.fenced().p50Micros(),
                    row.raw().p99Micros(), row.fenced().p99Micros(), row.raw().operations(),
                    row.fenced().operations(), row.raw().bytesPerOperation(), row.fenced().bytesPerOperation()));
        }
        return out.toString();
    }

    String json() {
        StringBuilder out = new StringBuilder("{\n");
        out.append("  \"started\": ").append(quote(started.toString())).append(",\n");
        out.append("  \"database\": ").append(quote(database)).append(",\n");
        out.append("  \"machine\": {\"cpu\": ").append(quote(machine.cpu())).append(", \"cores\": ")
                .append(machine.cores()).append(", \"os\": ").append(quote(machine.os())).append(", \"jvm\": ")
                .append(quote(machine.jvm())).append(String.format(Locale.ROOT,
                        ", \"load_at_start\": %.2f, \"load_at_end\": %.2f},%n", machine.loadAtStart(), loadAtEnd));
        out.append(String.format(Locale.ROOT, "  \"settings\": {\"rows\": %d, \"warmup_s\": %.2f, \"seconds\": %.2f,"
                + " \"rounds\": %d},%n", options.rows(), options.warmupSeconds(), options.seconds(), options.rounds()));
        out.append("  \"results\": [\n");
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            out.append(String.format(Locale.ROOT, "    {\"workload\": %s, \"threads\": %d, \"ratio\": %.4f,"
                            + " \"raw\": %s, \"fenced\": %s}%s%n", quote(row.workload().key()), row.threads(),
                    row.ratio(), side(row.raw()), side(row.fenced()), i + 1 < rows.size() ? "," : ""));
        }
        out.append("  ]");
        if (epochChange != null) {
            out.append(String.format(Locale.ROOT, ",%n  \"epoch_change\": {\"threads\": %d, \"advance_us\": %s,"
                            + " \"full_speed_after_us\": %s, \"refused_old_epoch_writes\": %d, \"writes\": %d}",
                    epochChange.threads(), array(epochChange.advanceMicros()), array(epochChange.fullSpeedMicros()),
                    epochChange.refusedOldEpochWrites(), epochChange.writes()));
        }
        out.append("\n}\n");
        return out.toString();
    }

    private static String side(Side side) {
        return String.format(Locale.ROOT, "{\"ops_per_s\": %.1f, \"p50_us\": %.1f, \"p99_us\": %.1f, \"ops\": %d,"
                        + " \"bytes_per_op\": %.0f}", side.opsPerSecond(), side.p50Micros(), side.p99Micros(),
                side.operations(), side.bytesPerOperation());
    }

    private static String array(double[] values) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < values.length; i++) {
            out.append(i == 0 ? "" : ", ").append(Double.isNaN(values[i]) ? "null"
                    : String.format(Locale.ROOT, "%.1f", values[i]));
        }
        return out.append(']').toString();
    }

    private static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
