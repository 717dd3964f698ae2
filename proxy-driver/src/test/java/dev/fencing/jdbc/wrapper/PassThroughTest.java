package dev.fencing.jdbc.wrapper;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The generated pass-through halves of the wrappers (src/build/PassThroughGenerator.java) hand out nothing that
 * could lead back to the raw connection and send no SQL that may write (SPEC C5): a method returning a connection,
 * statement, result set, metadata, array or any object, or one that executes, has behaviour and belongs in the
 * fenced class, where {@code WrapperCoverageTest} and the fencing tests call it.
 */
class PassThroughTest {
    private static final List<Class<?>> LEADS_BACK = List.of(Connection.class, Statement.class, ResultSet.class,
            DatabaseMetaData.class, Array.class, Object.class);

    private static final Set<String> RUNS_SQL = Set.of("execute", "executeQuery", "executeUpdate",
            "executeLargeUpdate", "executeBatch", "executeLargeBatch", "addBatch", "insertRow", "updateRow",
            "deleteRow");

    /** Each generated half, with the fenced class built on it and the least number of methods it delegates. */
    private static final Map<Class<?>, Integer> GENERATED = Map.of(
            PassThroughConnection.class, 40,
            PassThroughStatement.class, 25,
            PassThroughPreparedStatement.class, 45,
            PassThroughCallableStatement.class, 100,
            PassThroughResultSet.class, 170,
            PassThroughDatabaseMetaData.class, 150);

    @Test
    void passThroughMethodsReturnNoJdbcObjectAndRunNoSql_C5() {
        for (Map.Entry<Class<?>, Integer> each : GENERATED.entrySet()) {
            Class<?> type = each.getKey();
            List<String> behaviour = new ArrayList<>();
            int delegating = 0;
            for (Method method : type.getDeclaredMethods()) {
                if (Modifier.isAbstract(method.getModifiers()) || method.isSynthetic()) {
                    continue; // the accessor, or bind; lambdas of the bindings
                }
                delegating++;
                Class<?> returned = method.getReturnType();
                if (RUNS_SQL.contains(method.getName()) || LEADS_BACK.stream()
                        .anyMatch(t -> t == Object.class ? returned == t : t.isAssignableFrom(returned))) {
                    behaviour.add(method.toString());
                }
            }
            assertTrue(delegating >= each.getValue(), type + " delegates " + delegating);
            assertEquals(List.of(), behaviour, type.getSimpleName());
        }
    }

    /**
     * Every method of every wrapped interface is the driver's own: delegated by a generated half or written in the
     * fenced class. Only these keep the JDK's default, which never reaches the database.
     */
    @Test
    void noJdbcMethodFallsBackToTheJdkDefault() throws Exception {
        Set<String> jdkDefaults = Set.of("Statement.enquoteLiteral(String)",
                "Statement.enquoteIdentifier(String, boolean)", "Statement.isSimpleIdentifier(String)",
                "Statement.enquoteNCharLiteral(String)",
                // prepared and callable statements, on which JDBC forbids query strings: the JDK's default throws
                "Statement.executeLargeUpdate(String, int)", "Statement.executeLargeUpdate(String, int[])",
                "Statement.executeLargeUpdate(String, String[])");
        Map<Class<?>, Class<?>> wrapped = Map.of(Connection.class, FencedConnectionImpl.class,
                Statement.class, FencedStatement.class, PreparedStatement.class, FencedPreparedStatement.class,
                CallableStatement.class, FencedCallableStatement.class, ResultSet.class, FencedResultSet.class,
                DatabaseMetaData.class, FencedDatabaseMetaData.class);
        List<String> fallBack = new ArrayList<>();
        for (Map.Entry<Class<?>, Class<?>> each : wrapped.entrySet()) {
            for (Method method : each.getKey().getMethods()) {
                if (Modifier.isStatic(method.getModifiers())) {
                    continue;
                }
                Method resolved = each.getValue().getMethod(method.getName(), method.getParameterTypes());
                String key = resolved.getDeclaringClass().getSimpleName() + "." + method.getName() + "("
                        + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName)
                        .collect(Collectors.joining(", ")) + ")";
                if (resolved.getDeclaringClass().getName().startsWith("java.") && !jdkDefaults.contains(key)) {
                    fallBack.add(each.getValue().getSimpleName() + " uses " + key);
                }
            }
        }
        assertEquals(List.of(), fallBack);
    }
}
