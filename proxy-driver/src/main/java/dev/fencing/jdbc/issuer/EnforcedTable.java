package dev.fencing.jdbc.issuer;

import java.util.List;

/**
 * One table under enforcement ({@code fencing enforce}, PostgreSQL or MariaDB): the database refuses its changes without a
 * current token for {@code resource}, whichever client sends them.
 *
 * @param table    the table, qualified as the database prints it
 * @param resource the resource whose token its changes need
 * @param inForce  whether the enforcement works as installed: trigger enabled, on every event, once per statement,
 *                 its function unchanged; false when someone disabled or altered it
 * @param bypasses one line per login role that may change the table and could get around the enforcement, saying
 *                 how (superuser, owner, {@code session_replication_role}, ...); empty when none can
 */
public record EnforcedTable(String table, String resource, boolean inForce, List<String> bypasses) {
    public EnforcedTable {
        bypasses = List.copyOf(bypasses);
    }
}
