package dev.fencing.sql;

import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;

/**
 * The guard predicate of {@link EpochSql#guardPredicate()} as one AST node, parsed once per analyzer and attached
 * to each rewritten statement; its two marker nodes are told apart from the caller's by identity.
 */
final class GuardExpression {
    private final Expression expression;
    private final JdbcParameter resource;
    private final JdbcParameter token;
    private final PlainSelect lockedSelect;
    private final String lockClause;

    private GuardExpression(Expression expression, JdbcParameter resource, JdbcParameter token,
                            PlainSelect lockedSelect, String lockClause) {
        this.expression = expression;
        this.resource = resource;
        this.token = token;
        this.lockedSelect = lockedSelect;
        this.lockClause = lockClause;
    }

    /**
     * Parses the dialect's guard. Where JSqlParser cannot read the row-lock clause (MariaDB's
     * {@code LOCK IN SHARE MODE}) the subquery is parsed without it and the clause is appended when printing.
     *
     * @throws IllegalStateException when the parsed guard does not print back as {@code epochSql} writes it
     */
    static GuardExpression of(EpochSql epochSql) {
        Dialect dialect = epochSql.dialect();
        String text = epochSql.guardPredicate();
        String lockSuffix = " " + dialect.rowLockClause() + ")";
        Expression expression;
        PlainSelect lockedSelect = null;
        String lockClause = null;
        try {
            expression = parse(text, dialect);
        } catch (IllegalStateException unreadableLock) {
            if (!text.endsWith(lockSuffix)) {
                throw new IllegalStateException("JSqlParser cannot parse the guard " + text, unreadableLock);
            }
            expression = parse(text.substring(0, text.length() - lockSuffix.length()) + ")", dialect);
            lockedSelect = subquery(expression);
            lockClause = dialect.rowLockClause();
        }
        MarkerPrinter.Printed printed = new MarkerPrinter(lockedSelect, lockClause).print(expression);
        List<MarkerPrinter.Marker> markers = printed.markers();
        if (!printed.sql().equals(text) || markers.size() != 2) {
            throw new IllegalStateException("the guard " + text + " prints back as " + printed.sql());
        }
        return new GuardExpression(expression, markers.get(0).parameter(), markers.get(1).parameter(), lockedSelect,
                lockClause);
    }

    private static Expression parse(String text, Dialect dialect) {
        try {
            return SqlParsing.condition(text, dialect);
        } catch (ParseException | RuntimeException e) {
            throw new IllegalStateException("JSqlParser cannot parse the guard " + text, e);
        }
    }

    private static PlainSelect subquery(Expression expression) {
        if (expression instanceof ExistsExpression exists
                && exists.getRightExpression() instanceof ParenthesedSelect parenthesed
                && parenthesed.getSelect() instanceof PlainSelect plain) {
            return plain;
        }
        throw new IllegalStateException("the guard is not EXISTS (SELECT ...): " + expression);
    }

    Expression expression() {
        return expression;
    }

    boolean isResource(JdbcParameter parameter) {
        return parameter == resource;
    }

    boolean isToken(JdbcParameter parameter) {
        return parameter == token;
    }

    /** A printer that writes the guard as the database must see it. */
    MarkerPrinter printer() {
        return new MarkerPrinter(lockedSelect, lockClause);
    }
}
