package dev.fencing.sql;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResourceNameTest {
    @Test
    void namesInUseAreValid_C8() {
        for (String name : new String[] {"default", "orders", "billing-shard-3", "nightly-report", "res_4711_12",
                "catalog-schema", "eu-west/orders@v2", "team:reports+ops=1", "a", "x".repeat(200)}) {
            assertNull(ResourceName.problem(name), name);
            assertEquals(name, ResourceName.require(name));
        }
    }

    @Test
    void anythingElseIsRefusedWithTheReason_C8() {
        for (String name : new String[] {null, "", "x".repeat(201), "o'brien", "a\\b", "a b", " orders", "orders\n",
                "caf\u00e9", "\u02bcx", "a\"b", "a;b", "a\u0000b", "ab%", "$1", "\uff07"}) {
            String problem = ResourceName.problem(name);
            assertNotNull(problem, String.valueOf(name));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ResourceName.require(name));
            assertEquals(problem, e.getMessage());
        }
        assertTrue(ResourceName.problem("o'brien").contains("''' at position 2"), ResourceName.problem("o'brien"));
        assertTrue(ResourceName.problem("a\u0000b").contains("U+0000"), ResourceName.problem("a\u0000b"));
    }
}
