package dev.fencing.compat.corpus;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * Two databases prepared alike for one corpus group: one reached through the underlying driver, the other through
 * the fencing driver with a current token. Each side has its own observer connection (underlying driver) that
 * snapshots the group's tables after every statement.
 */
interface Twins extends AutoCloseable {
    /** The connection of the underlying driver, on the first twin. */
    Connection raw();

    /** The fencing driver's connection, with a current token, on the second twin. */
    Connection fenced();

    /** The committed state of the group's objects and rows on one side, without names that differ between twins. */
    Map<String, ObjectState> snapshot(boolean fencedSide) throws SQLException;

    @Override
    void close() throws SQLException;

    /** Opens fresh twins for one group. */
    interface Factory {
        Twins open(String group) throws SQLException;
    }
}
