package dev.fencing.sql;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.parser.AbstractJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.parser.feature.Feature;
import net.sf.jsqlparser.statement.Statement;

/**
 * Runs JSqlParser on the calling thread. {@code CCJSqlParserUtil.parse} starts a thread per call to enforce its
 * time-out; here the lexer has already split the text and bounded its nesting, so the parse runs synchronously
 * with the same simple-then-complex strategy.
 */
final class SqlParsing {
    /** Deeper texts are refused before parsing: the parser recurses per level. */
    static final int MAX_NESTING_DEPTH = 64;
    /** Complex parsing backtracks and can take exponential time, so like CCJSqlParserUtil it is tried only this deep. */
    private static final int MAX_COMPLEX_NESTING_DEPTH = (Integer) Feature.allowedNestingDepth.getDefaultValue();

    private SqlParsing() {
    }

    /** Parses one statement, all of {@code text}; throws when the parser cannot read it or text is left over. */
    static Statement statement(String text, Dialect dialect, int nestingDepth) throws ParseException {
        try {
            return statement(text, dialect, false);
        } catch (ParseException | RuntimeException simpleFailure) {
            if (nestingDepth > MAX_COMPLEX_NESTING_DEPTH) {
                throw simpleFailure;
            }
            return statement(text, dialect, true);
        }
    }

    /** Parses a boolean expression the fence itself writes. */
    static Expression condition(String text, Dialect dialect) throws ParseException {
        CCJSqlParser parser = parser(text, dialect, false);
        Expression expression = parser.Expression();
        requireEnd(parser);
        return expression;
    }

    private static Statement statement(String text, Dialect dialect, boolean complex) throws ParseException {
        CCJSqlParser parser = parser(text, dialect, complex);
        Statement statement = parser.Statement();
        requireEnd(parser);
        return statement;
    }

    private static void requireEnd(CCJSqlParser parser) throws ParseException {
        if (parser.getNextToken().kind != CCJSqlParserConstants.EOF) {
            throw new ParseException("text left after the statement");
        }
    }

    private static CCJSqlParser parser(String text, Dialect dialect, boolean complex) {
        CCJSqlParser parser = new CCJSqlParser(new StringProvider(text)).withAllowComplexParsing(complex);
        switch (dialect) {
            case POSTGRESQL:
                return parser.withDialect(AbstractJSqlParser.Dialect.POSTGRESQL);
            case H2:
                return parser.withDialect(AbstractJSqlParser.Dialect.H2);
            case MARIADB:
                return parser.withDialect(AbstractJSqlParser.Dialect.MARIADB);
            default:
                return parser;
        }
    }
}
