package dev.fencing.jdbc.internal;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pass-through halves of the wrappers hand out nothing that could lead back to the raw connection (SPEC C5):
 * a method returning a connection, statement, result set, metadata, array or any object has behaviour and
 * belongs in the fenced class, where {@code WrapperCoverageTest} calls it.
 */
class PassThroughTest {
    private static final List<Class<?>> LEADS_BACK = List.of(Connection.class, Statement.class, ResultSet.class,
            DatabaseMetaData.class, Array.class, Object.class);

    @Test
    void passThroughMethodsReturnNoJdbcObject_C5() {
        for (Class<?> type : List.of(PassThroughResultSet.class, PassThroughDatabaseMetaData.class)) {
            List<String> leading = new ArrayList<>();
            int declared = 0;
            for (Method method : type.getDeclaredMethods()) {
                declared++;
                Class<?> returned = method.getReturnType();
                if (LEADS_BACK.stream().anyMatch(t -> t == Object.class ? returned == t
                        : t.isAssignableFrom(returned))) {
                    leading.add(method.toString());
                }
            }
            assertTrue(declared > 100, type + " declares " + declared);
            assertEquals(List.of(), leading, type.getSimpleName());
        }
    }
}
