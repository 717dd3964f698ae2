package dev.fencing.bench;

import dev.fencing.jdbc.RequiresPostgres;
import dev.fencing.jdbc.TestDatabase;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps the side-by-side harness working: a smoke-sized run on H2 and on PostgreSQL measures every workload on
 * both drivers, with every fenced write in one epoch (SPEC C4: same-token writers), and writes CSV and JSON. Speed
 * is reported by the harness, never asserted here.
 */
class SideBySideSmokeTest {
    private static final String PG_URL = TestDatabase.pgUrl();

    @Test
    void smokeRunOnH2MeasuresEveryWorkloadOnBothDriversInOneEpoch_C4() throws Exception {
        Path out = Path.of("target", "side-by-side-smoke", "h2");
        Report report = SideBySide.run("--size=smoke", "--url=jdbc:h2:mem:bench_smoke;DB_CLOSE_DELAY=-1",
                "--out=" + out);
        checkReport(report, out);
    }

    @Test
    @RequiresPostgres
    void smokeRunOnPostgresMeasuresEveryWorkloadOnBothDriversInOneEpoch_C4() throws Exception {
        Path out = Path.of("target", "side-by-side-smoke", "postgresql");
        Report report = SideBySide.run("--size=smoke", "--url=" + PG_URL, "--out=" + out);
        checkReport(report, out);
    }

    @Test
    void badOptionsAreOneLineErrors() {
        IllegalArgumentException rounds = assertThrows(IllegalArgumentException.class,
                () -> Options.parse("--rounds=0"));
        assertEquals("--rounds must be a positive whole number, not '0'", rounds.getMessage());
        IllegalArgumentException url = assertThrows(IllegalArgumentException.class,
                () -> Options.parse("--url=jdbc:fencing:h2:mem:x"));
        assertTrue(url.getMessage().startsWith("--url must be the raw driver's JDBC URL"), url.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Options.parse("--workloads=update,delete"));
        assertThrows(IllegalArgumentException.class, () -> Options.parse("--size=huge"));
        assertThrows(IllegalArgumentException.class, () -> Options.parse("--threads"));
    }

    private static void checkReport(Report report, Path out) throws Exception {
        List<Report.Row> rows = report.rows();
        assertEquals(Workload.values().length * 2, rows.size(), report.table());
        for (Report.Row row : rows) {
            assertTrue(row.raw().operations() > 0 && row.fenced().operations() > 0, report.table());
            assertTrue(row.ratio() > 0 && row.raw().p99Micros() >= row.raw().p50Micros(), report.table());
        }
        assertTrue(report.measuredEpochChange(), report.table());
        assertTrue(report.table().contains("| INSERT batch of 100 rows | 2 |"), report.table());
        List<String> csv = Files.readAllLines(out.resolve("side-by-side.csv"), StandardCharsets.UTF_8);
        assertEquals(rows.size() + 1, csv.size(), String.join("\n", csv));
        assertTrue(csv.get(0).startsWith("database,workload,threads,raw_ops_per_s,fenced_ops_per_s,ratio"));
        String json = Files.readString(out.resolve("side-by-side.json"), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"workload\": \"tpcb\", \"threads\": 2") && json.contains("\"epoch_change\""), json);
    }
}
