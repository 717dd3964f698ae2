package dev.fencing.compat.corpus;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What one statement did, as a caller sees it and as the database shows it afterwards: its results (update counts
 * and rows, in order) or its SQLState, and a snapshot of the group's tables taken on a separate connection.
 */
record Outcome(String result, String effect) {
    private static final int MAX_ROWS = 50;

    /**
     * Runs {@code sql} with {@code Statement.execute}, or when {@code prepared} with {@code prepareStatement(sql)}
     * and {@code execute()}, and reads every result it returns.
     */
    static String run(Connection connection, Statement plain, String sql, boolean prepared) {
        try {
            if (!prepared) {
                return results(plain, plain.execute(sql));
            }
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                return results(statement, statement.execute());
            }
        } catch (SQLException e) {
            return "error " + e.getSQLState();
        } catch (RuntimeException e) {
            return "exception " + e.getClass().getSimpleName();
        }
    }

    private static String results(Statement statement, boolean first) {
        try {
            boolean isResultSet = first;
            List<String> results = new ArrayList<>();
            while (true) {
                if (isResultSet) {
                    try (ResultSet rs = statement.getResultSet()) {
                        results.add("rows " + rows(rs));
                    }
                } else {
                    int count = statement.getUpdateCount();
                    if (count == -1) {
                        break;
                    }
                    results.add("count " + count);
                }
                isResultSet = statement.getMoreResults();
            }
            return String.join("; ", results);
        } catch (SQLException e) {
            return "error " + e.getSQLState();
        } catch (RuntimeException e) {
            return "exception " + e.getClass().getSimpleName();
        }
    }

    static String rows(ResultSet rs) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        StringBuilder out = new StringBuilder("[");
        int n = 0;
        while (rs.next()) {
            if (n++ == MAX_ROWS) {
                out.append(" ...");
                continue;
            }
            out.append(n == 1 ? "(" : ", (");
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                out.append(i == 1 ? "" : "|").append(rs.getString(i));
            }
            out.append(')');
        }
        return out.append("] of ").append(n).toString();
    }

    boolean sameAs(Outcome other) {
        return result.equals(other.result) && effect.equals(other.effect);
    }

    @Override
    public String toString() {
        return result;
    }
}
