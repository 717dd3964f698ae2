package dev.fencing.sql;

import java.util.List;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.merge.MergeDelete;
import net.sf.jsqlparser.statement.merge.MergeInsert;
import net.sf.jsqlparser.statement.merge.MergeOperation;
import net.sf.jsqlparser.statement.merge.MergeUpdate;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.update.Update;

/**
 * Joins the guard into a mutation's own text by adding it to the AST (a WHERE, an INSERT's SELECT, a MERGE's
 * WHEN clause) and printing the result, for the statements where the join cannot change what they do when the
 * token is current. Every doubt yields no joined form: the driver then runs the guard ahead of the statement.
 */
final class GuardRewriter {
    private final GuardExpression guard;
    private final Dialect dialect;

    GuardRewriter(GuardExpression guard, Dialect dialect) {
        this.guard = guard;
        this.dialect = dialect;
    }

    /**
     * The guarded form of {@code statement}, which this call changes, or {@code null} when it has none.
     *
     * @param userMarkers  how many {@code ?} markers the lexer counted in the caller's text
     * @param nestingDepth how deeply the caller's text nests parentheses
     */
    GuardedSql join(Statement statement, int userMarkers, int nestingDepth) {
        if (!attach(statement)) {
            return null;
        }
        MarkerPrinter.Printed printed = guard.printer().print(statement);
        String readable = printed.withoutLock();
        if (printed.foreignParameters() || !readable.equals(statement.toString()) || !reparses(readable, nestingDepth)) {
            return null;
        }
        return guardedSql(printed, userMarkers);
    }

    private boolean attach(Statement statement) {
        if (statement instanceof Update update) {
            if (!isEmpty(update.getWithItemsList()) || update.getReturningClause() != null
                    || update.getOutputClause() != null) {
                return false;
            }
            update.setWhere(guarded(update.getWhere()));
            return true;
        }
        if (statement instanceof Delete delete) {
            if (!isEmpty(delete.getWithItemsList()) || delete.getReturningClause() != null
                    || delete.getOutputClause() != null) {
                return false;
            }
            delete.setWhere(guarded(delete.getWhere()));
            return true;
        }
        if (statement instanceof Insert insert) {
            PlainSelect select = simpleSelectOf(insert);
            if (select == null) {
                return false;
            }
            select.setWhere(guarded(select.getWhere()));
            return true;
        }
        if (statement instanceof Merge merge) {
            return attachToMerge(merge);
        }
        return false;
    }

    /**
     * The guard goes into the WHEN clause: in the ON condition a failed guard would turn matches into inserts.
     * {@link GuardedSql} holds one resource and one token marker, so only a MERGE with one WHEN clause qualifies.
     */
    private boolean attachToMerge(Merge merge) {
        List<MergeOperation> operations = merge.getOperations();
        if (!isEmpty(merge.getWithItemsList()) || merge.getReturningClause() != null
                || merge.getOutputClause() != null || operations == null || operations.size() != 1) {
            return false;
        }
        MergeOperation operation = operations.get(0);
        if (operation instanceof MergeUpdate update) {
            update.setAndPredicate(guarded(update.getAndPredicate()));
        } else if (operation instanceof MergeInsert insert) {
            insert.setAndPredicate(guarded(insert.getAndPredicate()));
        } else if (operation instanceof MergeDelete delete) {
            delete.setAndPredicate(guarded(delete.getAndPredicate()));
        } else {
            return false;
        }
        return true;
    }

    /**
     * The SELECT of an INSERT ... SELECT when a WHERE added to it only filters rows: one plain SELECT without
     * grouping, DISTINCT, limits, WITH or function calls (an aggregate would still yield a row when the guard fails).
     */
    private static PlainSelect simpleSelectOf(Insert insert) {
        if (insert.getSelect() == null || insert.getSelect().getClass() != PlainSelect.class
                || !isEmpty(insert.getWithItemsList()) || insert.getReturningClause() != null
                || insert.getOutputClause() != null || insert.isUseSet() || insert.isOracleMultiInsert()) {
            return null;
        }
        PlainSelect select = (PlainSelect) insert.getSelect();
        boolean plain = isEmpty(select.getWithItemsList()) && select.getDistinct() == null
                && select.getGroupBy() == null && select.getHaving() == null && select.getQualify() == null
                && select.getLimit() == null && select.getLimitBy() == null && select.getOffset() == null
                && select.getFetch() == null && select.getTop() == null && select.getFirst() == null
                && select.getSkip() == null && isEmpty(select.getIntoTables())
                && isEmpty(select.getWindowDefinitions());
        if (!plain) {
            return null;
        }
        for (SelectItem<?> item : select.getSelectItems()) {
            if (!isPlainValue(item.getExpression())) {
                return null;
            }
        }
        return select;
    }

    /** Columns, literals, markers and arithmetic or casts of them: nothing that aggregates or calls a function. */
    private static boolean isPlainValue(Expression expression) {
        if (expression instanceof Column || expression instanceof AllColumns || expression instanceof JdbcParameter
                || expression instanceof StringValue || expression instanceof LongValue
                || expression instanceof DoubleValue || expression instanceof NullValue
                || expression instanceof BooleanValue || expression instanceof DateTimeLiteralExpression) {
            return true;
        }
        if (expression instanceof CastExpression cast) {
            return isPlainValue(cast.getLeftExpression());
        }
        if (expression instanceof SignedExpression signed) {
            return isPlainValue(signed.getExpression());
        }
        if (expression instanceof BinaryExpression binary) {
            return isPlainValue(binary.getLeftExpression()) && isPlainValue(binary.getRightExpression());
        }
        if (expression instanceof ParenthesedExpressionList<?> list) {
            return list.stream().allMatch(GuardRewriter::isPlainValue);
        }
        return false;
    }

    /** {@code (<condition>) AND <guard>}, or the guard alone when there was no condition. */
    private Expression guarded(Expression condition) {
        if (condition == null) {
            return guard.expression();
        }
        Expression left = condition instanceof ParenthesedExpressionList<?> ? condition
                : new ParenthesedExpressionList<>(condition);
        return new AndExpression(left, guard.expression());
    }

    private boolean reparses(String sql, int nestingDepth) {
        try {
            SqlParsing.statement(sql, dialect, nestingDepth);
            return true;
        } catch (ParseException | RuntimeException e) {
            return false;
        }
    }

    /** Maps markers to positions; {@code null} when the printed markers do not match the caller's text. */
    private GuardedSql guardedSql(MarkerPrinter.Printed printed, int userMarkers) {
        List<MarkerPrinter.Marker> markers = printed.markers();
        if (markers.size() != userMarkers + 2) {
            return null;
        }
        int[] userToActual = new int[userMarkers];
        int user = 0;
        int resourceIndex = -1;
        int tokenIndex = -1;
        int resourceOffset = -1;
        int tokenOffset = -1;
        for (int i = 0; i < markers.size(); i++) {
            MarkerPrinter.Marker marker = markers.get(i);
            if (guard.isResource(marker.parameter()) && resourceIndex < 0) {
                resourceIndex = i + 1;
                resourceOffset = marker.offset();
            } else if (guard.isToken(marker.parameter()) && tokenIndex < 0) {
                tokenIndex = i + 1;
                tokenOffset = marker.offset();
            } else if (guard.isResource(marker.parameter()) || guard.isToken(marker.parameter())
                    || user == userMarkers) {
                return null;
            } else {
                userToActual[user++] = i + 1;
            }
        }
        if (user != userMarkers || resourceIndex < 0 || tokenIndex < resourceIndex) {
            return null;
        }
        return new GuardedSql(printed.sql(), userToActual, resourceIndex, tokenIndex, resourceOffset, tokenOffset);
    }

    private static boolean isEmpty(List<?> list) {
        return list == null || list.isEmpty();
    }
}
