package dev.fencing.jdbc;

import java.util.OptionalLong;

/**
 * A pluggable supplier of fencing tokens, named by class in the {@code fencing.token.source} setting (a public
 * class with a public no-argument constructor). Asked at every mutation, so it should answer from memory.
 */
public interface TokenSource {
    /**
     * The token the current owner holds for {@code resource}, or empty when it holds none. Any value not
     * positive is refused as an invalid token.
     */
    OptionalLong token(String resource) throws Exception;
}
