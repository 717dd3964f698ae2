package dev.fencing.torture;

import java.time.Instant;

/** Wall-clock time in microseconds since the Unix epoch, the unit the databases' mark log uses too. */
final class Micros {
    private Micros() {
    }

    static long now() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }
}
