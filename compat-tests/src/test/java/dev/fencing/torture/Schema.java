package dev.fencing.torture;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The tables of one torture run, all named after one unique prefix so runs never touch each other's or anybody
 * else's objects on a shared server.
 *
 * <p>The commit position: every transaction that writes a log row or changes the high-water mark takes the next
 * value of a single counter row in a trigger ({@code UPDATE clock SET n = n + 1}). The row lock taken by that
 * update is held until the transaction ends, so a later transaction can only read the counter once the earlier
 * one has committed: counter order is commit order, exactly, for every transaction that touched it. A sequence
 * would not do (its values are handed out at insert time, not at commit time). Operations write their log row
 * as their last statement, so the counter serializes only the last statement and the commit, never the fenced
 * statements or the pauses before them.
 */
final class Schema {
    static final int DATA_ROWS = 12;
    static final int SLOT_ROWS = 8;

    private final String prefix;
    private final boolean postgres;

    private boolean mariadb;

    /** The same schema on a MariaDB server (row-level triggers only, stored functions for the clock). */
    Schema(String prefix, boolean postgres, boolean mariadb) {
        this(prefix, postgres);
        this.mariadb = mariadb;
    }

    Schema(String prefix, boolean postgres) {
        this.prefix = prefix;
        this.postgres = postgres;
    }

    String epoch() {
        return prefix + "_epoch";
    }

    String lease() {
        return prefix + "_lease";
    }

    String clock() {
        return prefix + "_clock";
    }

    String ops() {
        return prefix + "_ops";
    }

    String marks() {
        return prefix + "_marks";
    }

    String data() {
        return prefix + "_data";
    }

    /** One row per UPDATE statement on the data table, written by a statement-level trigger. */
    String statements() {
        return prefix + "_stmts";
    }

    String items() {
        return prefix + "_items";
    }

    String slots() {
        return prefix + "_slots";
    }

    /** Creates the run's tables and triggers; the epoch and lease tables must exist already. */
    void create(Connection raw) throws SQLException {
        try (Statement s = raw.createStatement()) {
            s.execute("CREATE TABLE " + clock() + " (id INT PRIMARY KEY, n BIGINT NOT NULL)");
            s.execute("INSERT INTO " + clock() + " VALUES (1, 0)");
            s.execute("CREATE TABLE " + ops() + " (op_id BIGINT PRIMARY KEY, pos BIGINT DEFAULT 0 NOT NULL UNIQUE, owner INT,"
                    + " token BIGINT NOT NULL)");
            s.execute("CREATE TABLE " + marks() + " (pos BIGINT PRIMARY KEY, resource VARCHAR(200) NOT NULL,"
                    + " old_epoch BIGINT NOT NULL, new_epoch BIGINT NOT NULL, at_micros BIGINT NOT NULL)");
            s.execute("CREATE TABLE " + data() + " (id INT PRIMARY KEY, v BIGINT NOT NULL, last_op BIGINT,"
                    + " last_token BIGINT)");
            s.execute("CREATE TABLE " + items() + " (op_id BIGINT NOT NULL, n INT NOT NULL, PRIMARY KEY (op_id, n))");
            s.execute("CREATE TABLE " + slots() + " (id INT PRIMARY KEY, v BIGINT NOT NULL, op_id BIGINT, token BIGINT)");
            s.execute("CREATE TABLE " + statements() + " (n INT)");
            for (int id = 1; id <= DATA_ROWS; id++) {
                s.execute("INSERT INTO " + data() + " (id, v) VALUES (" + id + ", 0)");
            }
            for (int id = 1; id <= SLOT_ROWS; id++) {
                s.execute("INSERT INTO " + slots() + " (id, v) VALUES (" + id + ", 0)");
            }
            for (String sql : mariadb ? mariadbTriggers() : postgres ? postgresTriggers() : h2Triggers()) {
                s.execute(sql);
            }
        }
    }

    private List<String> postgresTriggers() {
        String micros = "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint";
        return List.of(
                "CREATE FUNCTION " + prefix + "_next() RETURNS BIGINT LANGUAGE sql AS 'UPDATE " + clock()
                        + " SET n = n + 1 WHERE id = 1 RETURNING n'",
                "CREATE FUNCTION " + prefix + "_pos() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.pos := "
                        + prefix + "_next(); RETURN NEW; END $$",
                "CREATE TRIGGER " + prefix + "_pos BEFORE INSERT ON " + ops() + " FOR EACH ROW EXECUTE FUNCTION "
                        + prefix + "_pos()",
                "CREATE FUNCTION " + prefix + "_mark() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " IF TG_OP = 'INSERT' THEN INSERT INTO " + marks() + " VALUES (" + prefix
                        + "_next(), NEW.resource, 0, NEW.epoch, " + micros + ");"
                        + " ELSIF NEW.epoch IS DISTINCT FROM OLD.epoch THEN INSERT INTO " + marks() + " VALUES ("
                        + prefix + "_next(), NEW.resource, OLD.epoch, NEW.epoch, " + micros + "); END IF;"
                        + " RETURN NULL; END $$",
                "CREATE TRIGGER " + prefix + "_mark AFTER INSERT OR UPDATE ON " + epoch()
                        + " FOR EACH ROW EXECUTE FUNCTION " + prefix + "_mark()",
                "CREATE FUNCTION " + prefix + "_slot() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO "
                        + ops() + " (op_id, token) VALUES (NEW.op_id, NEW.token); RETURN NULL; END $$",
                "CREATE TRIGGER " + prefix + "_slot AFTER UPDATE ON " + slots() + " FOR EACH ROW EXECUTE FUNCTION "
                        + prefix + "_slot()",
                "CREATE FUNCTION " + prefix + "_stmt() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO "
                        + statements() + " VALUES (1); RETURN NULL; END $$",
                "CREATE TRIGGER " + prefix + "_stmt AFTER UPDATE ON " + data() + " FOR EACH STATEMENT EXECUTE FUNCTION "
                        + prefix + "_stmt()");
    }

    /**
     * MariaDB has no statement-level triggers: the data table's row-level one counts statements as well, since
     * every UPDATE of the workload changes exactly one existing row.
     */
    private List<String> mariadbTriggers() {
        String micros = "CAST(UNIX_TIMESTAMP(SYSDATE(6)) * 1000000 AS SIGNED)";
        return List.of(
                "CREATE FUNCTION " + prefix + "_next() RETURNS BIGINT MODIFIES SQL DATA BEGIN DECLARE v BIGINT;"
                        + " UPDATE " + clock() + " SET n = n + 1 WHERE id = 1; SELECT n INTO v FROM " + clock()
                        + " WHERE id = 1; RETURN v; END",
                "CREATE TRIGGER " + prefix + "_pos BEFORE INSERT ON " + ops() + " FOR EACH ROW SET NEW.pos = "
                        + prefix + "_next()",
                "CREATE TRIGGER " + prefix + "_mark_ins AFTER INSERT ON " + epoch() + " FOR EACH ROW INSERT INTO "
                        + marks() + " VALUES (" + prefix + "_next(), NEW.resource, 0, NEW.epoch, " + micros + ")",
                "CREATE TRIGGER " + prefix + "_mark_upd AFTER UPDATE ON " + epoch() + " FOR EACH ROW BEGIN"
                        + " IF NEW.epoch <> OLD.epoch THEN INSERT INTO " + marks() + " VALUES (" + prefix
                        + "_next(), NEW.resource, OLD.epoch, NEW.epoch, " + micros + "); END IF; END",
                "CREATE TRIGGER " + prefix + "_slot AFTER UPDATE ON " + slots() + " FOR EACH ROW INSERT INTO "
                        + ops() + " (op_id, token) VALUES (NEW.op_id, NEW.token)",
                "CREATE TRIGGER " + prefix + "_stmt AFTER UPDATE ON " + data() + " FOR EACH ROW INSERT INTO "
                        + statements() + " VALUES (1)");
    }

    private List<String> h2Triggers() {
        String triggers = H2Triggers.class.getName();
        return List.of(
                "CREATE TRIGGER " + prefix + "_pos BEFORE INSERT ON " + ops() + " FOR EACH ROW CALL '" + triggers
                        + "$Position'",
                "CREATE TRIGGER " + prefix + "_mark AFTER INSERT, UPDATE ON " + epoch() + " FOR EACH ROW CALL '"
                        + triggers + "$Mark'",
                "CREATE TRIGGER " + prefix + "_slot AFTER UPDATE ON " + slots() + " FOR EACH ROW CALL '" + triggers
                        + "$Slot'",
                "CREATE TRIGGER " + prefix + "_stmt AFTER UPDATE ON " + data() + " FOR EACH STATEMENT CALL '" + triggers
                        + "$DataStatement'");
    }

    /** Drops everything {@link #create} and the issuer created. */
    void drop(Connection raw) throws SQLException {
        try (Statement s = raw.createStatement()) {
            for (String table : List.of(ops(), marks(), items(), data(), slots(), statements(), clock(), epoch(),
                    lease())) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
            if (mariadb) {
                // the session fence's registrations and the resource map, created beside the epoch table by
                // fencing.schema=create
                s.execute("DROP TABLE IF EXISTS " + epoch() + "_session");
                s.execute("DROP TABLE IF EXISTS " + epoch() + "_resource");
                s.execute("DROP FUNCTION IF EXISTS " + prefix + "_next");
            }
            if (postgres) {
                for (String function : List.of("_next", "_pos", "_mark", "_slot", "_stmt")) {
                    s.execute("DROP FUNCTION IF EXISTS " + prefix + function + "() CASCADE");
                }
            }
        }
    }
}
