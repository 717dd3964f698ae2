package dev.fencing.jdbc;

/**
 * {@link PostgresBypassTest} with a resource map (SPEC C11): the table is mapped to a resource whose token the attacker
 * lacks or holds stale, while the connection names another resource and holds its current token.
 */
class PostgresMappedBypassTest extends PostgresBypassTest {
    @Override
    boolean mapped() {
        return true;
    }
}
