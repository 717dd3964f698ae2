package dev.fencing.jdbc;

/**
 * One acquisition of a resource by this process, as a coordinator hands it to the fence: the resource and the
 * token of this acquisition. The lease SPI that the coordinator modules (fencing-curator, fencing-redisson, ...)
 * and the driver's own issuer implement; an in-house coordinator implements it too and gets the same two ways to
 * write fenced: on this thread ({@link #scope()}) or from every thread of the process ({@link #holdForProcess()}).
 * What the token must guarantee (strictly greater for every new holder, never reused, positive 63 bits) is set
 * out in docs/coordinators.md.
 */
public interface FencingLease {
    /** The resource acquired; a valid resource name (1 to 200 characters from {@code A-Z a-z 0-9 _ . : / @ + = -}). */
    String resource();

    /** The fencing token of this acquisition: positive, and greater than the token of every earlier holder. */
    long token();

    /** Fences this thread's writes with this lease until the scope is closed ({@link Fencing#scope}). */
    default Fencing.Scope scope() {
        return Fencing.scope(resource(), token());
    }

    /**
     * Makes this lease's token the one in force for its resource on every thread of this process whose connections
     * take their token from {@link HeldTokens} ({@code fencing.token.source=dev.fencing.jdbc.HeldTokens}), until the
     * hold is closed. For a leader that writes from many threads.
     */
    default HeldTokens.Hold holdForProcess() {
        return HeldTokens.hold(resource(), token());
    }
}
