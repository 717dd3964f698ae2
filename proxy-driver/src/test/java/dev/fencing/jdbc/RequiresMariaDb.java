package dev.fencing.jdbc;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test class (or method) that needs the MariaDB server of {@code fencing.test.mariadb.url} (through either driver). Without a
 * reachable server the whole class is skipped before any set-up or clean-up runs (one notice per test run, see
 * {@link TestDatabase#mariadbReachable()}); under {@code CI=true} an unreachable server fails it instead.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(RequiresMariaDb.Condition.class)
public @interface RequiresMariaDb {

    /** Decides before the class's lifecycle methods run, so clean-up never meets a set-up that did not happen. */
    final class Condition implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return TestDatabase.mariadbReachable()
                    ? ConditionEvaluationResult.enabled("MariaDB reachable at " + TestDatabase.mariadbUrl())
                    : ConditionEvaluationResult.disabled("MariaDB unreachable at " + TestDatabase.mariadbUrl());
        }
    }
}
