package dev.fencing.jdbc.guard;

import dev.fencing.jdbc.config.Settings;
import dev.fencing.jdbc.FencingProperty;
import dev.fencing.sql.Analysis;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.EpochTable;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The configured exempt tables ({@code fencing.exempt}) as one connection's database resolves them (schema, case,
 * search path), and whether a data change writes only them: decided by the catalog, never by the name in the text.
 */
final class ExemptTables {

    private final CatalogTables catalog;
    /** Own names of the configured exempt tables, lower-cased: the cheap textual test before any catalog question. */
    private final Set<String> exemptNames = new HashSet<>();
    private final Set<CatalogTables.Table> exempt = new HashSet<>();
    /** Configured exempt tables that did not exist at connect: resolved again when a statement names them. */
    private final List<EpochTable> unresolved = new ArrayList<>();

    private ExemptTables(Connection raw, Dialect dialect) {
        this.catalog = new CatalogTables(raw, dialect);
    }

    /**
     * Resolves the configured exempt tables the way this connection's database resolves a name (schema, case).
     *
     * @throws SQLException {@link dev.fencing.jdbc.FencingSqlState#CONFIGURATION} when one is a view or another
     *                      object that is not a plain table, or the database is one the driver cannot ask
     */
    static ExemptTables open(Connection raw, Dialect dialect, List<EpochTable> exemptTables) throws SQLException {
        ExemptTables tables = new ExemptTables(raw, dialect);
        if (!exemptTables.isEmpty() && dialect == Dialect.GENERIC) {
            throw Settings.configuration(FencingProperty.EXEMPT.getName() + " needs a database whose catalog the"
                    + " driver can ask (PostgreSQL, H2, MariaDB)");
        }
        for (EpochTable table : exemptTables) {
            tables.exemptNames.add(table.simpleName());
            if (!tables.resolveExempt(table, true)) {
                tables.unresolved.add(table);
            }
        }
        return tables;
    }

    /**
     * Whether every target of a data change is a configured exempt table and, when it would run {@code unlocked}
     * (see {@link Catalog#needsGuard(Analysis, Catalog.Unlocked)}), it reads no other relation (a view read in it may
     * write elsewhere, found by review): first by name in the text (free), then, only when all match, by asking the
     * database which table each written reference means.
     */
    boolean writesOnlyExempt(Analysis analysis, Catalog.Unlocked unlocked) throws SQLException {
        if (analysis.targetTables().isEmpty() || !exemptNames.containsAll(analysis.targetTables())
                || analysis.readsRelations() && unlocked.now()
                || analysis.targetReferences().isEmpty()) {
            return false;
        }
        for (EpochTable table : List.copyOf(unresolved)) {
            if (analysis.targetTables().contains(table.simpleName()) && resolveExempt(table, false)) {
                unresolved.remove(table);
            }
        }
        for (List<String> reference : analysis.targetReferences()) {
            CatalogTables.Table table = resolve(reference);
            if (table == null || !exempt.contains(table)) {
                return false;
            }
        }
        return true;
    }

    /** Resolves a configured exempt table; false when it does not exist (yet). */
    private boolean resolveExempt(EpochTable configured, boolean atConnect) throws SQLException {
        CatalogTables.Resolved resolved = catalog.lookUp(List.of(configured.toString().split("\\.")));
        if (resolved == null) {
            return false;
        }
        if (!resolved.kind().equals("table")) {
            if (atConnect) {
                throw Settings.configuration(FencingProperty.EXEMPT.getName() + ": '" + configured + "' is a "
                        + resolved.kind() + ", not a plain table; only a plain table's own rows can be exempt");
            }
            return false;
        }
        exempt.add(resolved.table());
        return true;
    }

    /** The table a written name means to the database, only when it is a plain table (no view, no children). */
    private CatalogTables.Table resolve(List<String> parts) throws SQLException {
        CatalogTables.Resolved resolved = catalog.lookUp(parts);
        return resolved != null && resolved.kind().equals("table") ? resolved.table() : null;
    }

}
