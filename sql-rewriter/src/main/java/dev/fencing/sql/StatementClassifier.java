package dev.fencing.sql;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.DescribeStatement;
import net.sf.jsqlparser.statement.ExplainStatement;
import net.sf.jsqlparser.statement.ResetStatement;
import net.sf.jsqlparser.statement.SetStatement;
import net.sf.jsqlparser.statement.ShowColumnsStatement;
import net.sf.jsqlparser.statement.ShowStatement;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.UseStatement;
import net.sf.jsqlparser.statement.alter.Alter;
import net.sf.jsqlparser.statement.alter.AlterExpression;
import net.sf.jsqlparser.statement.alter.RenameTableStatement;
import net.sf.jsqlparser.statement.comment.Comment;
import net.sf.jsqlparser.statement.create.index.CreateIndex;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.create.view.CreateView;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.delete.ParenthesedDelete;
import net.sf.jsqlparser.statement.drop.Drop;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.insert.ParenthesedInsert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.WithItem;
import net.sf.jsqlparser.statement.show.ShowIndexStatement;
import net.sf.jsqlparser.statement.show.ShowTablesStatement;
import net.sf.jsqlparser.statement.truncate.Truncate;
import net.sf.jsqlparser.statement.update.ParenthesedUpdate;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.upsert.Upsert;

/**
 * Decides what a parsed statement is and which tables it writes. Anything not known to be read-only or a
 * setting is a mutation: an unknown statement must never pass without a token.
 */
final class StatementClassifier {
    private final Set<String> targets = new LinkedHashSet<>();
    private boolean writes;

    private StatementClassifier() {
    }

    /** The analysis of one parsed statement. */
    static Analysis classify(Statement statement) {
        if (statement instanceof Select select) {
            StatementClassifier classifier = new StatementClassifier();
            classifier.select(select);
            return classifier.writes ? Analyses.mutation(classifier.targetList(), true, 1)
                    : Analyses.readOnly(1, true);
        }
        if (statement instanceof ExplainStatement explain && explain.getStatement() != null) {
            // EXPLAIN of a mutation is that mutation, whatever its options say (an ANALYZE may hide in them).
            Analysis explained = classify(explain.getStatement());
            return explained.kind() == StatementKind.MUTATION
                    ? Analyses.mutation(explained.targetTables(), true, 1) : Analyses.readOnly(1, true);
        }
        if (statement instanceof ExplainStatement || statement instanceof DescribeStatement
                || statement instanceof ShowColumnsStatement || statement instanceof ShowTablesStatement
                || statement instanceof ShowIndexStatement) {
            return Analyses.readOnly(1, true);
        }
        if (statement instanceof ShowStatement) {
            return Analyses.sessionSetting(1, true);
        }
        if (statement instanceof SetStatement || statement instanceof ResetStatement
                || statement instanceof UseStatement) {
            return Analyses.sessionSetting(1, false);
        }
        StatementClassifier classifier = new StatementClassifier();
        boolean returnsRows = classifier.mutation(statement);
        return Analyses.mutation(classifier.targetList(), returnsRows, 1);
    }

    /** Collects the targets of a mutation; returns whether it yields rows. */
    private boolean mutation(Statement statement) {
        if (statement instanceof Insert insert) {
            withItems(insert.getWithItemsList());
            if (insert.getSelect() != null) {
                select(insert.getSelect());
            }
            add(insert.getTable());
            return insert.getReturningClause() != null || insert.getOutputClause() != null;
        }
        if (statement instanceof Update update) {
            withItems(update.getWithItemsList());
            add(update.getTable());
            joinedTables(update.getStartJoins());
            return update.getReturningClause() != null || update.getOutputClause() != null;
        }
        if (statement instanceof Delete delete) {
            withItems(delete.getWithItemsList());
            if (delete.getTables() != null && !delete.getTables().isEmpty()) {
                // MySQL's multi-table DELETE names its targets by alias (DELETE e FROM t JOIN fencing_epoch e):
                // every table it reads may be one of them.
                delete.getTables().forEach(this::add);
                add(delete.getTable());
                joinedTables(delete.getJoins());
                if (delete.getUsingList() != null) {
                    delete.getUsingList().forEach(this::add);
                }
            } else {
                add(delete.getTable());
            }
            return delete.getReturningClause() != null || delete.getOutputClause() != null;
        }
        if (statement instanceof Merge merge) {
            withItems(merge.getWithItemsList());
            add(merge.getTable());
            return merge.getReturningClause() != null || merge.getOutputClause() != null;
        }
        if (statement instanceof Upsert upsert) {
            add(upsert.getTable());
        } else if (statement instanceof Truncate truncate) {
            if (truncate.getTables() != null && !truncate.getTables().isEmpty()) {
                truncate.getTables().forEach(this::add);
            } else {
                add(truncate.getTable());
            }
        } else if (statement instanceof CreateTable createTable) {
            add(createTable.getTable());
        } else if (statement instanceof CreateIndex createIndex) {
            add(createIndex.getTable());
        } else if (statement instanceof CreateView createView) {
            add(createView.getView());
        } else if (statement instanceof Alter alter) {
            add(alter.getTable());
            renamedTo(alter.getAlterExpressions());
        } else if (statement instanceof RenameTableStatement rename) {
            rename.getTableNames().forEach(names -> {
                add(names.getKey());
                add(names.getValue());
            });
        } else if (statement instanceof Comment comment) {
            add(comment.getTable());
        } else if (statement instanceof Drop drop) {
            dropped(drop);
        }
        return false;
    }

    /** {@code ALTER TABLE t RENAME TO n} writes n as well: renaming a table onto the epoch table is a write to it. */
    private void renamedTo(List<AlterExpression> expressions) {
        if (expressions == null) {
            return;
        }
        for (AlterExpression expression : expressions) {
            String newName = expression.getNewTableName();
            if (newName != null) {
                targets.add(Names.ownOf(newName));
            }
        }
    }

    private void dropped(Drop drop) {
        String type = drop.getType() == null ? "" : drop.getType().toUpperCase(Locale.ROOT);
        if (!type.equals("TABLE") && !type.equals("VIEW")) {
            return;
        }
        add(drop.getName());
        if (drop.getNames() != null) {
            drop.getNames().forEach(this::add);
        }
    }

    /** Walks a query: SELECT ... INTO writes its INTO table, and a WITH item may hold a mutation. */
    private void select(Select select) {
        withItems(select.getWithItemsList());
        if (select instanceof PlainSelect plain) {
            if (plain.getIntoTables() != null && !plain.getIntoTables().isEmpty()) {
                writes = true;
                plain.getIntoTables().forEach(this::add);
            }
        } else if (select instanceof SetOperationList setOperations) {
            setOperations.getSelects().forEach(this::select);
        } else if (select instanceof ParenthesedSelect parenthesed) {
            select(parenthesed.getSelect());
        }
    }

    private void withItems(List<WithItem<?>> withItems) {
        if (withItems == null) {
            return;
        }
        for (WithItem<?> item : withItems) {
            Statement inner = unwrap(item.getStatement());
            if (inner instanceof Select select) {
                select(select);
            } else if (inner != null) {
                writes = true;
                mutation(inner);
            }
        }
    }

    private static Statement unwrap(Statement statement) {
        if (statement instanceof ParenthesedInsert insert) {
            return insert.getInsert();
        }
        if (statement instanceof ParenthesedUpdate update) {
            return update.getUpdate();
        }
        if (statement instanceof ParenthesedDelete delete) {
            return delete.getDelete();
        }
        return statement;
    }

    private void joinedTables(List<Join> joins) {
        if (joins == null) {
            return;
        }
        for (Join join : joins) {
            fromItem(join.getRightItem());
        }
    }

    /** A table, or the tables of a parenthesised join ({@code (a JOIN b)}), of a multi-table UPDATE or DELETE. */
    private void fromItem(FromItem item) {
        if (item instanceof Table table) {
            add(table);
        } else if (item instanceof ParenthesedFromItem parenthesed) {
            fromItem(parenthesed.getFromItem());
            joinedTables(parenthesed.getJoins());
        }
    }

    private void add(Table table) {
        if (table != null && table.getName() != null) {
            targets.add(Names.fold(table.getName()));
        }
    }

    private List<String> targetList() {
        return new ArrayList<>(targets);
    }
}
