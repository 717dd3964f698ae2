package dev.fencing.jdbc.wrapper;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The generated-keys request reaches the underlying driver exactly as the caller made it. */
class KeysTest {
    private final List<String> calls = new ArrayList<>();

    /** A statement that records which overload ran, with its arguments (the stub statement cannot tell them apart). */
    private final Statement statement = (Statement) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {Statement.class}, (proxy, method, args) -> {
                StringBuilder call = new StringBuilder(method.getName());
                for (Object arg : args) {
                    call.append(' ').append(arg instanceof int[] ints ? Arrays.toString(ints)
                            : arg instanceof String[] names ? Arrays.toString(names) : String.valueOf(arg));
                }
                calls.add(call.toString());
                return method.getReturnType() == boolean.class ? Boolean.TRUE
                        : method.getReturnType() == int.class ? (Object) 3 : (Object) 4L;
            });

    private List<String> run(Keys keys) throws SQLException {
        calls.clear();
        assertTrue(keys.execute(statement, "INSERT x"));
        assertEquals(3, keys.executeUpdate(statement, "INSERT x"));
        assertEquals(4L, keys.executeLargeUpdate(statement, "INSERT x"));
        return List.copyOf(calls);
    }

    @Test
    void noRequestCallsThePlainOverloads() throws SQLException {
        assertEquals(List.of("execute INSERT x", "executeUpdate INSERT x", "executeLargeUpdate INSERT x"),
                run(Keys.NONE));
        assertFalse(Keys.NONE.requested());
    }

    @Test
    void aFlagIsPassedOnAsGivenAndOnlyReturnGeneratedKeysIsARequest() throws SQLException {
        assertEquals(List.of("execute INSERT x 1", "executeUpdate INSERT x 1", "executeLargeUpdate INSERT x 1"),
                run(Keys.of(Statement.RETURN_GENERATED_KEYS)));
        assertTrue(Keys.of(Statement.RETURN_GENERATED_KEYS).requested());
        assertEquals(List.of("execute INSERT x 2", "executeUpdate INSERT x 2", "executeLargeUpdate INSERT x 2"),
                run(Keys.of(Statement.NO_GENERATED_KEYS)), "NO_GENERATED_KEYS still reaches the driver as given");
        assertFalse(Keys.of(Statement.NO_GENERATED_KEYS).requested());
    }

    @Test
    void columnIndexesAndNamesArePassedOn() throws SQLException {
        assertEquals(List.of("execute INSERT x [1, 3]", "executeUpdate INSERT x [1, 3]",
                "executeLargeUpdate INSERT x [1, 3]"), run(Keys.of(new int[] {1, 3})));
        assertEquals(List.of("execute INSERT x [id]", "executeUpdate INSERT x [id]",
                "executeLargeUpdate INSERT x [id]"), run(Keys.of(new String[] {"id"})));
        assertTrue(Keys.of(new int[] {1}).requested());
        assertTrue(Keys.of(new String[] {"id"}).requested());
    }
}
