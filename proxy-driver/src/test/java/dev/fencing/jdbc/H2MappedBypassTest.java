package dev.fencing.jdbc;

/**
 * {@link H2BypassTest} with a resource map (SPEC C11): the table is mapped to a resource whose token the attacker
 * lacks or holds stale, while the connection names another resource and holds its current token.
 */
class H2MappedBypassTest extends H2BypassTest {
    @Override
    boolean mapped() {
        return true;
    }
}
