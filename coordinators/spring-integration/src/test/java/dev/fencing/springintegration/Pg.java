package dev.fencing.springintegration;

import dev.fencing.jdbc.testsupport.PostgresJudge;

import java.sql.SQLException;

/** This module's judge: a schema of the test's own on the machine's PostgreSQL, from the driver's test support. */
final class Pg extends PostgresJudge {
    private Pg(String rawUrl) {
        super("si", rawUrl);
    }

    static Pg create() throws SQLException {
        String pg = configuredUrl();
        return create(new Pg(openEnded(pg)), pg, "Spring Integration");
    }
}
