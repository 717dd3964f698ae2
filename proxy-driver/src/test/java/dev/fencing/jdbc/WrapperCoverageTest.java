package dev.fencing.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * No JDBC object leads back to the raw connection (SPEC C5): every method of {@code Connection}, the three
 * statement kinds, {@code ResultSet}, {@code DatabaseMetaData} and {@code Array} whose return type is one of those
 * interfaces is found by reflection, called on the fencing driver's object, and must answer the fencing driver's
 * own object, whose way back ({@code getConnection}, {@code getStatement}) is the fenced connection. A method the
 * database rejects with the arguments given may throw, and only the few listed in {@link #MAY_BE_REJECTED}.
 */
abstract class WrapperCoverageTest {
    /** The JDBC interfaces walked, and the return types that lead back to a connection. */
    static final List<Class<?>> JDBC_OBJECTS = List.of(Connection.class, Statement.class, PreparedStatement.class,
            CallableStatement.class, ResultSet.class, DatabaseMetaData.class, Array.class);

    /**
     * Methods a database may reject, with why. Each must name a walked method; any other method that throws fails
     * the test, so a leak cannot hide behind an exception.
     */
    static final Map<String, String> MAY_BE_REJECTED = Map.of(
            "PreparedStatement.executeQuery(String)", "JDBC forbids a query string on a prepared statement (SPEC C8)",
            "CallableStatement.executeQuery(String)", "JDBC forbids a query string on a prepared statement (SPEC C8)",
            "CallableStatement.getArray(String)", "pgjdbc has no named parameters",
            "Connection.prepareStatement(String, int[])", "pgjdbc cannot return generated keys by column index",
            "DatabaseMetaData.getAttributes(String, String, String, String)", "pgjdbc has not implemented it",
            "DatabaseMetaData.getPseudoColumns(String, String, String, String)", "pgjdbc has not implemented it",
            "DatabaseMetaData.getSuperTables(String, String, String)", "pgjdbc has not implemented it",
            "DatabaseMetaData.getSuperTypes(String, String, String)", "pgjdbc has not implemented it");

    String raw;
    String table;
    Connection connection;

    abstract TestDatabase database();

    /** A call whose out parameter 1 is an integer array. */
    abstract String arrayCall();

    /** The array column's type in the database's own words. */
    abstract String arrayType();

    @BeforeEach
    void open() throws SQLException {
        raw = database().rawUrl();
        table = TestDatabase.unique("wrap");
        TestDatabase.exec(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, arr " + arrayType() + ")",
                "INSERT INTO " + table + " VALUES (1, ARRAY[1, 2])");
        connection = DriverManager.getConnection(TestDatabase.fenced(raw, "fencing.schema=create",
                "fencing.resource=" + table, "fencing.token=1"));
    }

    @AfterEach
    void close() throws SQLException {
        if (connection != null) {
            connection.close();
        }
        TestDatabase.dropNamed(raw, table);
    }

    @Test
    void everyMethodReturningAJdbcObjectReturnsTheFencedOne_C5() throws Exception {
        Map<String, Method> walked = walked();
        for (Class<?> type : JDBC_OBJECTS) {
            assertTrue(walked.keySet().stream().anyMatch(key -> key.startsWith(type.getSimpleName() + ".")),
                    type.getSimpleName() + " has methods to walk");
        }
        assertTrue(walked.keySet().containsAll(MAY_BE_REJECTED.keySet()),
                "listed as rejected but not walked: " + minus(MAY_BE_REJECTED.keySet(), walked.keySet()));
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Method> each : walked.entrySet()) {
            String key = each.getKey();
            Method method = each.getValue();
            Class<?> on = Class.forName("java.sql." + key.substring(0, key.indexOf('.')));
            Object subject = subject(on, method);
            Object result;
            try {
                result = method.invoke(subject, arguments(on, method));
            } catch (InvocationTargetException e) {
                if (!(e.getCause() instanceof SQLException) || !MAY_BE_REJECTED.containsKey(key)) {
                    problems.add(key + " threw " + e.getCause());
                }
                continue;
            }
            String problem = notFenced(result);
            if (problem != null) {
                problems.add(key + " " + problem);
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void anArrayReadAsAnObjectIsTheFencedOne_C5() throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(query())) {
            assertTrue(rs.next());
            for (Object value : List.of(rs.getObject(1), rs.getObject("arr"), rs.getObject(1, Array.class))) {
                assertTrue(value instanceof Array, String.valueOf(value));
                assertEquals(null, notFenced(value));
            }
        }
    }

    /** Every public method of the walked interfaces that returns one of them, keyed by interface and signature. */
    static Map<String, Method> walked() {
        Map<String, Method> walked = new java.util.TreeMap<>();
        for (Class<?> type : JDBC_OBJECTS) {
            for (Method method : type.getMethods()) {
                if (!Modifier.isStatic(method.getModifiers()) && JDBC_OBJECTS.contains(method.getReturnType())) {
                    String parameters = Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName)
                            .collect(Collectors.joining(", "));
                    walked.put(type.getSimpleName() + "." + method.getName() + "(" + parameters + ")", method);
                }
            }
        }
        return walked;
    }

    private static Set<String> minus(Set<String> a, Set<String> b) {
        Set<String> rest = new TreeSet<>(a);
        rest.removeAll(b);
        return rest;
    }

    private String query() {
        return "SELECT arr, id FROM " + table;
    }

    /** A fresh fenced object of {@code type}, with a result to hand out where the method reads one. */
    private Object subject(Class<?> type, Method method) throws SQLException {
        if (type == Connection.class) {
            return connection;
        }
        if (type == CallableStatement.class) {
            if (method.getName().equals("getArray")) {
                CallableStatement call = connection.prepareCall(arrayCall());
                call.registerOutParameter(1, Types.ARRAY);
                call.execute();
                return call;
            }
            CallableStatement call = connection.prepareCall(query());
            call.execute();
            return call;
        }
        if (type == PreparedStatement.class) {
            PreparedStatement prepared = connection.prepareStatement(query());
            prepared.execute();
            return prepared;
        }
        if (type == Statement.class) {
            Statement statement = connection.createStatement();
            statement.execute(query());
            return statement;
        }
        if (type == DatabaseMetaData.class) {
            return connection.getMetaData();
        }
        ResultSet rs = connection.createStatement().executeQuery(query());
        assertTrue(rs.next());
        return type == ResultSet.class ? rs : rs.getArray(1);
    }

    /** Arguments the databases accept: column 1 or parameter 1 is the array, metadata names the test's table. */
    private Object[] arguments(Class<?> type, Method method) throws SQLException {
        Class<?>[] parameters = method.getParameterTypes();
        Object[] arguments = new Object[parameters.length];
        int ints = 0;
        for (int i = 0; i < parameters.length; i++) {
            Class<?> p = parameters[i];
            if (p == String.class) {
                if (type == DatabaseMetaData.class) {
                    arguments[i] = i % 3 == 2 ? stored(table) : null;
                } else if (method.getName().equals("createArrayOf")) {
                    arguments[i] = "INTEGER";
                } else if (method.getName().startsWith("get")) {
                    arguments[i] = "arr";
                } else {
                    arguments[i] = query();
                }
            } else if (p == int.class) {
                arguments[i] = type == Connection.class ? connectionInt(method, ints++) : 1;
            } else if (p == long.class) {
                arguments[i] = 1L;
            } else if (p == boolean.class) {
                arguments[i] = false;
            } else if (p == int[].class) {
                arguments[i] = new int[] {1};
            } else if (p == String[].class) {
                arguments[i] = type == DatabaseMetaData.class ? null : new String[] {stored("id")};
            } else if (p == Object[].class) {
                arguments[i] = new Object[] {1, 2};
            } else if (p == Map.class) {
                arguments[i] = Map.of();
            } else {
                fail("no argument for " + p + " in " + method);
            }
        }
        return arguments;
    }

    private static int connectionInt(Method method, int index) {
        if (method.getName().equals("prepareStatement") && method.getParameterCount() == 2) {
            return Statement.RETURN_GENERATED_KEYS;
        }
        return new int[] {ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY,
                ResultSet.HOLD_CURSORS_OVER_COMMIT}[index];
    }

    private String stored(String name) throws SQLException {
        return connection.getMetaData().storesUpperCaseIdentifiers() ? name.toUpperCase(Locale.ROOT)
                : name.toLowerCase(Locale.ROOT);
    }

    /** Why {@code result} is not the fencing driver's own object leading back to the fenced connection, or null. */
    private String notFenced(Object result) throws SQLException {
        if (result == null) {
            return "returned null";
        }
        if (!result.getClass().getName().startsWith("dev.fencing.jdbc.")) {
            return "returned the underlying driver's " + result.getClass().getName();
        }
        Connection back = null;
        if (result instanceof Connection c) {
            back = c;
        } else if (result instanceof Statement s) {
            back = s.getConnection();
        } else if (result instanceof DatabaseMetaData m) {
            back = m.getConnection();
        } else if (result instanceof ResultSet rs && rs.getStatement() != null) {
            String owner = notFenced(rs.getStatement());
            if (owner != null) {
                return "has a statement that " + owner;
            }
            back = rs.getStatement().getConnection();
        } else if (result instanceof Array array) {
            return notFenced(array.getResultSet());
        }
        if (back != null && back != connection) {
            return "leads back to " + back.getClass().getName();
        }
        return null;
    }
}
