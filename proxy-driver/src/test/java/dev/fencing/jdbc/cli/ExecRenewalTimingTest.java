package dev.fencing.jdbc.cli;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * When {@code fencing exec} renews: the arithmetic behind the renewal loop (the loop itself, with a network that
 * stops answering, is {@code ExecProcessTest}).
 */
class ExecRenewalTimingTest {
    private static Duration s(double seconds) {
        return Duration.ofMillis((long) (seconds * 1000));
    }

    @Test
    void renewalsComeEveryPeriodWhileThereIsTime() {
        assertEquals(s(1), ExecCommand.untilNextRenewal(s(1), s(19).toNanos()));
        assertEquals(s(0.2), ExecCommand.untilNextRenewal(s(0.2), s(6).toNanos()));
    }

    @Test
    void nearTheStopTheyComeAtHalfTheTimeLeftAndNoMoreOftenThanEvery50Ms() {
        assertEquals(s(0.75), ExecCommand.untilNextRenewal(s(2), s(1.5).toNanos()), "a --renew-every too long");
        assertEquals(s(0.05), ExecCommand.untilNextRenewal(s(1), s(0.04).toNanos()));
        assertEquals(s(0.05), ExecCommand.untilNextRenewal(s(1), 0));
        assertEquals(s(0.01), ExecCommand.untilNextRenewal(s(0.01), 0), "never longer than --renew-every");
    }
}
