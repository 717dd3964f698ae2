package dev.fencing.jdbc.config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** SPEC C1: a token written as text is decimal digits only, positive and within a {@code long}. */
class TokenTextTest {
    @Test
    void digitsAreReadAfterTrimmingWhiteSpace_C1() {
        assertEquals(1, TokenText.parse("1"));
        assertEquals(42, TokenText.parse(" 42\n"));
        assertEquals(7, TokenText.parse("\u2003007\t"), "Unicode white space is trimmed, leading zeros are digits");
        assertEquals(Long.MAX_VALUE, TokenText.parse("9223372036854775807"));
    }

    @Test
    void anythingElseIsInvalid_C1() {
        for (String bad : new String[] {null, "", "   ", "0", "00", "-1", "+1", "1x", "1 2", "1.0", "1e3", "0x10",
                "\u0661", "\uff11", "9223372036854775808", "99999999999999999999"}) {
            assertEquals(-1, TokenText.parse(bad), () -> "'" + bad + "' must be refused");
        }
    }
}
