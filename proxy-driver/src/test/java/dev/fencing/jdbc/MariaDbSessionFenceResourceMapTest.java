package dev.fencing.jdbc;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** {@link ResourceMapTest} on MariaDB under the session fence ({@code fencing.guard=session}). */
@RequiresMariaDb
class MariaDbSessionFenceResourceMapTest extends ResourceMapTest {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    String guard() {
        return "session";
    }

    /**
     * Open (issue 22, found by CI): two connections advancing two resources in opposite order under the MariaDB session
     * fence: a raise can fail with "the registration of a live session cannot be deleted" (the ended session is still
     * in the process list when the raise removes its row). A raise refused, never a write let through; not yet fixed.
     */
    @Override
    @Test
    @Disabled("open, issue 22: concurrent hand-overs of two resources on MariaDB can fail the raise (docs/session-fence.md)")
    void twoWritersTakingTwoResourcesInOppositeOrderNeverDeadlock_C11() {
    }
}
