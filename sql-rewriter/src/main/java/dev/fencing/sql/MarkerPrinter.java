package dev.fencing.sql;

import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcNamedParameter;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.util.deparser.ExpressionDeParser;
import net.sf.jsqlparser.util.deparser.SelectDeParser;
import net.sf.jsqlparser.util.deparser.StatementDeParser;

/**
 * Prints an AST with JSqlParser's deparser while noting, in print order, every {@code ?} marker it writes and
 * where; it can also append a row-lock clause JSqlParser has no node for (MariaDB's {@code LOCK IN SHARE MODE})
 * to one given subquery.
 */
final class MarkerPrinter {
    /** One printed {@code ?}: the AST node and the offset of its character in the printed text. */
    record Marker(JdbcParameter parameter, int offset) {
    }

    /**
     * What was printed: the text, its markers, whether it holds numbered or named parameters, and where the
     * appended lock clause is ({@code lockStart == lockEnd} when none was appended).
     */
    record Printed(String sql, List<Marker> markers, boolean foreignParameters, int lockStart, int lockEnd) {
        /** The text without the appended lock clause: what JSqlParser itself can read back. */
        String withoutLock() {
            return sql.substring(0, lockStart) + sql.substring(lockEnd);
        }
    }

    private final PlainSelect lockedSelect;
    private final String lockClause;
    private final StringBuilder out = new StringBuilder();
    private final List<Marker> markers = new ArrayList<>();
    private boolean foreignParameters;
    private int lockStart = -1;
    private int lockEnd = -1;

    /**
     * @param lockedSelect the subquery to append {@code lockClause} to, or {@code null} when nothing is appended
     */
    MarkerPrinter(PlainSelect lockedSelect, String lockClause) {
        this.lockedSelect = lockedSelect;
        this.lockClause = lockClause;
    }

    Printed print(Statement statement) {
        Expressions expressions = new Expressions();
        Selects selects = new Selects(expressions);
        expressions.setSelectVisitor(selects);
        statement.accept(new StatementDeParser(expressions, selects, out), null);
        return result();
    }

    Printed print(Expression expression) {
        Expressions expressions = new Expressions();
        expressions.setSelectVisitor(new Selects(expressions));
        expression.accept(expressions, null);
        return result();
    }

    private Printed result() {
        String sql = out.toString();
        int start = lockStart < 0 ? sql.length() : lockStart;
        int end = lockEnd < 0 ? sql.length() : lockEnd;
        return new Printed(sql, List.copyOf(markers), foreignParameters, start, end);
    }

    /** Notes each marker before the deparser writes it; numbered ({@code ?1}, {@code $1}) and named ones are foreign. */
    private final class Expressions extends ExpressionDeParser {
        Expressions() {
            setBuilder(out);
        }

        @Override
        public <S> StringBuilder visit(JdbcParameter parameter, S context) {
            if (parameter.isUseFixedIndex() || !"?".equals(parameter.getParameterCharacter())) {
                foreignParameters = true;
            } else {
                markers.add(new Marker(parameter, out.length()));
            }
            return super.visit(parameter, context);
        }

        @Override
        public <S> StringBuilder visit(JdbcNamedParameter parameter, S context) {
            foreignParameters = true;
            return super.visit(parameter, context);
        }
    }

    /** Appends the lock clause right after the locked subquery's own text, inside its parentheses. */
    private final class Selects extends SelectDeParser {
        Selects(Expressions expressions) {
            super(expressions, out);
        }

        @Override
        public <S> StringBuilder visit(PlainSelect plainSelect, S context) {
            StringBuilder result = super.visit(plainSelect, context);
            if (plainSelect == lockedSelect) {
                lockStart = out.length();
                out.append(' ').append(lockClause);
                lockEnd = out.length();
            }
            return result;
        }
    }
}
