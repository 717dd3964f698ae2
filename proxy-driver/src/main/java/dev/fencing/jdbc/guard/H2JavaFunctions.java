package dev.fencing.jdbc.guard;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Whether an H2 Java function gets the session's {@code java.sql.Connection}: H2's catalog hides that parameter, so
 * the embedded database's own record of the function is asked. Loaded only on H2 connections.
 */
final class H2JavaFunctions {
    private H2JavaFunctions() {
    }

    /**
     * Whether any overload of the function {@code schema.name} takes a {@code Connection}, or the database hands
     * every function its session as {@code jdbc:default:connection} (its {@code DEFAULT_CONNECTION} setting), or that
     * cannot be told (a database in another process, another H2 version, a class that does not load): then it may.
     */
    static boolean mayTakeConnection(Connection raw, String schema, String name) throws SQLException {
        try {
            org.h2.engine.Session session = raw.unwrap(org.h2.jdbc.JdbcConnection.class).getSession();
            if (!(session instanceof org.h2.engine.SessionLocal)) {
                return true;
            }
            org.h2.engine.Database database = ((org.h2.engine.SessionLocal) session).getDatabase();
            if (database.getSettings().defaultConnection) {
                return true;
            }
            org.h2.schema.Schema found = database.findSchema(schema);
            org.h2.schema.FunctionAlias function = found == null ? null : found.findFunction(name);
            if (function == null) {
                return true;
            }
            for (org.h2.schema.FunctionAlias.JavaMethod method : function.getJavaMethods()) {
                if (method.hasConnectionParam()) {
                    return true;
                }
            }
            return false;
        } catch (RuntimeException | LinkageError e) {
            return true;
        }
    }
}
