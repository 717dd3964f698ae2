package dev.fencing.compat;

import dev.fencing.jdbc.Fencing;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.jdbc.FencingSqlState;
import dev.fencing.jdbc.TestDatabase;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static dev.fencing.compat.CompatDb.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Flyway applying migrations as a fenced maintenance job: the migration scripts and Flyway's own schema history
 * writes go through the same fenced connections, so a stale job changes neither.
 */
class FlywayCompatTest {
    /**
     * Flyway over {@code url}. A fencing URL goes in as a {@link FencingDataSource}: Flyway picks its database
     * support by URL prefix and knows no {@code jdbc:fencing:}, but given a data source it asks the connection's
     * metadata, which names the real database. The epoch table lives outside Flyway's schema
     * ({@link CompatDb#separateEpochTable()}): in it, Flyway would find a non-empty schema without history and stop.
     * On H2 the migrations run outside a transaction: Flyway writes its history on a second connection while the
     * migration's transaction is still open, and H2, which has no shared row locks, makes the history write wait
     * for the migration's lock on the epoch row, which waits for the history write.
     */
    private static Flyway flyway(String url, String target) {
        FluentConfiguration configuration = Flyway.configure().locations("classpath:db/compat-migration")
                .target(target);
        if (url.startsWith("jdbc:fencing:")) {
            FencingDataSource dataSource = new FencingDataSource();
            dataSource.setUrl(url);
            configuration.dataSource(dataSource).executeInTransaction(!url.startsWith("jdbc:fencing:h2:"));
        } else {
            configuration.dataSource(url, null, null);
        }
        return configuration.load();
    }

    /** The history as Flyway wrote it, without the columns that differ run to run (time, user, duration). */
    private static List<String> history(CompatDb db) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(db.raw()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(("SELECT \"version\", \"description\", \"type\", \"script\", \"checksum\","
                     + " \"success\" FROM \"flyway_schema_history\" ORDER BY \"installed_rank\"")
                     .replace('"', db.database.mysqlFamily() ? '`' : '"'))) {
            while (rs.next()) {
                rows.add(rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getString(4)
                        + "|" + rs.getString(5) + "|" + rs.getString(6));
            }
        }
        return rows;
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aMaintenanceJobWithAValidTokenMigratesAsTheRawDriverDoes_C8(TestDatabase database) throws Exception {
        try (CompatDb rawDb = CompatDb.open(database); CompatDb fencedDb = CompatDb.open(database)) {
            int expected = flyway(rawDb.raw(), "latest").migrate().migrationsExecuted;
            try (Fencing.Scope job = Fencing.scope("catalog-schema", 20)) {
                assertEquals(expected, flyway(fencedDb.fenced("fencing.resource=catalog-schema",
                        fencedDb.separateEpochTable()), "latest")
                        .migrate().migrationsExecuted);
            }
            assertEquals(3, expected);
            assertEquals(history(rawDb), history(fencedDb));
            assertEquals(rawDb.dump("product"), fencedDb.dump("product"));
            assertEquals(20, fencedDb.mark("catalog-schema"));
        }
    }

    /**
     * The database was migrated to V1 before fencing; the job now runs without a token. (Started on an empty
     * database, the refusal comes when Flyway creates its history table, which Flyway retries for ten seconds.)
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void withoutATokenNoMigrationRunsAndTheHistoryStaysAsItWas_C1(TestDatabase database) throws Exception {
        try (CompatDb db = CompatDb.open(database)) {
            assertEquals(1, flyway(db.raw(), "1").migrate().migrationsExecuted);
            List<String> history = history(db);
            assertRefused(FencingSqlState.INVALID_TOKEN,
                    assertThrows(FlywayException.class, () -> flyway(db.fenced(db.separateEpochTable()), "latest")
                            .migrate()));
            assertEquals(history, history(db));
            assertEquals(List.of(), db.dump("product"));
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aStaleJobAppliesNoMigrationAndWritesNoHistory_C2(TestDatabase database) throws Exception {
        try (CompatDb db = CompatDb.open(database)) {
            String url = db.fenced("fencing.resource=catalog-schema", db.separateEpochTable());
            try (Fencing.Scope newJob = Fencing.scope("catalog-schema", 2)) {
                assertEquals(2, flyway(url, "2").migrate().migrationsExecuted);
            }
            List<String> history = history(db);
            List<String> products = db.dump("product");
            try (Fencing.Scope staleJob = Fencing.scope("catalog-schema", 1)) {
                assertRefused(FencingSqlState.STALE_TOKEN,
                        assertThrows(FlywayException.class, () -> flyway(url, "latest").migrate()));
            }
            assertEquals(history, history(db));
            assertEquals(products, db.dump("product"));
            assertEquals(2, db.mark("catalog-schema"));
        }
    }
}
