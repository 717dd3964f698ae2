package dev.fencing.jdbc.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What {@code fencing exec} puts in its command's {@code PGOPTIONS} (issue 28): the token and resource as custom
 * settings for libpq clients, appended to what was there, so they win over an earlier {@code -c} of the same name.
 */
class ExecPgOptionsTest {
    @Test
    void theTokenAndResourceAreAppendedToTheExistingOptions() {
        assertEquals("-c fencing.token=7 -c fencing.resource=nightly", ExecCommand.pgOptions(null, 7, "nightly"));
        assertEquals("-c fencing.token=7 -c fencing.resource=nightly", ExecCommand.pgOptions("  ", 7, "nightly"));
        assertEquals("-c statement_timeout=5s -c fencing.token=1 -c fencing.resource=a=b:c/d@e",
                ExecCommand.pgOptions("-c statement_timeout=5s", 1, "a=b:c/d@e"));
        assertEquals("-c fencing.token=3 -c fencing.token=9223372036854775807 -c fencing.resource=r",
                ExecCommand.pgOptions("-c fencing.token=3", Long.MAX_VALUE, "r"));
    }
}
