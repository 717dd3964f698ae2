package dev.fencing.jdbc.issuer;

import dev.fencing.jdbc.FencingSqlState;

import java.sql.SQLException;
import java.util.List;

/**
 * Enforcement by the database ({@code fencing enforce}): installs, removes and lists the triggers that make the
 * database refuse changes to protected tables without a current token, in the issuer's transaction, beside the located
 * epoch and lease tables. One implementation per database that has it: {@link PostgresEnforcement},
 * {@link MariaDbEnforcement}.
 */
interface Enforcement {
    /** Puts each table under enforcement for {@code resource}; returns the tables (qualified) now enforced. */
    List<String> enforce(List<String> tables, String resource) throws SQLException;

    /** Takes each table out of enforcement; returns the tables (qualified) whose triggers were removed. */
    List<String> remove(List<String> tables) throws SQLException;

    /** Every table enforced beside this epoch table, with whether it is in force and who could get around it. */
    List<EnforcedTable> list() throws SQLException;

    /** The enforcement of the issuer's database; H2 (and any other) has none. */
    static Enforcement of(LeaseRows rows) throws SQLException {
        switch (rows.epochSql().dialect()) {
            case POSTGRESQL:
                return new PostgresEnforcement(rows);
            case MARIADB:
                return new MariaDbEnforcement(rows);
            default:
                throw new SQLException("fencing: enforcement by the database is built for PostgreSQL and MariaDB, not "
                        + rows.epochSql().dialect() + " (see docs/enforcement.md)", FencingSqlState.CONFIGURATION);
        }
    }
}
