package dev.fencing.demo;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's demo, run as a test: the paused owner's late write is fenced (SPEC C2), the new owner's stand. */
class LegacyDemoTest {
    @Test
    void thePausedOwnersLateWriteIsFencedAndTheNewOwnersStand_C2() throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            LegacyDemo.main(new String[0]);
        } finally {
            System.setOut(out);
        }
        String printed = captured.toString(StandardCharsets.UTF_8);
        out.print(printed);
        assertTrue(printed.contains("Refused by the database (SQLState ZF002)"), printed);
        assertTrue(printed.contains("balance 300, last written by B"), printed);
        assertTrue(printed.contains("(SQLState ZF001)"), printed);
        assertFalse(printed.contains("SHOULD NOT HAPPEN"), printed);
    }
}
