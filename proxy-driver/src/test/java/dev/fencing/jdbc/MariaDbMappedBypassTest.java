package dev.fencing.jdbc;

/**
 * {@link MariaDbBypassTest} with a resource map (SPEC C11): the table is mapped to a resource whose token the attacker
 * lacks or holds stale, while the connection names another resource and holds its current token.
 */
class MariaDbMappedBypassTest extends MariaDbBypassTest {
    @Override
    boolean mapped() {
        return true;
    }
}
