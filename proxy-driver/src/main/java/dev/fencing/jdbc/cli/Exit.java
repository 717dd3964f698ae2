package dev.fencing.jdbc.cli;

/** The exit codes of the {@code fencing} command, documented in docs/issuer.md; {@code exec} otherwise passes its command's. */
final class Exit {
    static final int OK = 0;
    /** Bad arguments or configuration (sysexits EX_USAGE). */
    static final int USAGE = 64;
    /** The database could not be reached or refused a statement (EX_UNAVAILABLE). */
    static final int DATABASE = 69;
    /** An unexpected failure inside the command (EX_SOFTWARE). */
    static final int INTERNAL = 70;
    /** The lease is held by another holder and did not come free within the wait (EX_TEMPFAIL: try later). */
    static final int BUSY = 75;
    /** The lease was lost: renewal failed or it was taken; {@code exec} stopped its command. */
    static final int LOST = 76;
    /** {@code exec} could not start its command. */
    static final int CANNOT_START = 127;

    private Exit() {
    }
}
