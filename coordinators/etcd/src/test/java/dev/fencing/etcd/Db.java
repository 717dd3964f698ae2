package dev.fencing.etcd;

import dev.fencing.jdbc.testsupport.H2Judge;

import java.sql.SQLException;

/** This module's judge: an H2 in-memory database of the test's own (docs/etcd.md), from the driver's test support. */
final class Db extends H2Judge {
    Db() throws SQLException {
        super("etcd");
    }
}
