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
 * Marks a test class (or method) that needs the PostgreSQL server of {@code fencing.test.pg.url}. Without a
 * reachable server the whole class is skipped before any set-up or clean-up runs (one notice per test run, see
 * {@link TestDatabase#postgresReachable()}); under {@code CI=true} an unreachable server fails it instead.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(RequiresPostgres.Condition.class)
public @interface RequiresPostgres {

    /** Decides before the class's lifecycle methods run, so clean-up never meets a set-up that did not happen. */
    final class Condition implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return TestDatabase.postgresReachable()
                    ? ConditionEvaluationResult.enabled("PostgreSQL reachable at " + TestDatabase.pgUrl())
                    : ConditionEvaluationResult.disabled("PostgreSQL unreachable at " + TestDatabase.pgUrl());
        }
    }
}
