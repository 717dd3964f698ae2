package dev.fencing.compat.corpus;

import java.util.Map;
import java.util.TreeSet;

/**
 * One database object as an observer sees it: its structure (kind, columns, triggers, rules) and, for tables, how
 * many rows it holds and a hash of their content ({@code rows} is -1 for objects without rows).
 */
record ObjectState(String structure, long rows, String hash) {
    /**
     * What a statement changed, from the states before and after it: per changed object its new structure, the
     * change in its row count and whether its content changed. Comparing changes rather than whole states keeps a
     * difference of one statement from making every later one differ too.
     */
    static String changes(Map<String, ObjectState> before, Map<String, ObjectState> after) {
        TreeSet<String> names = new TreeSet<>(before.keySet());
        names.addAll(after.keySet());
        StringBuilder out = new StringBuilder();
        for (String name : names) {
            ObjectState a = before.get(name);
            ObjectState b = after.get(name);
            if (a != null && a.equals(b)) {
                continue;
            }
            out.append(name).append(": ");
            if (b == null) {
                out.append("dropped; ");
                continue;
            }
            if (a == null || !a.structure.equals(b.structure)) {
                out.append(b.structure).append(' ');
            }
            if (b.rows >= 0) {
                long delta = b.rows - (a == null || a.rows < 0 ? 0 : a.rows);
                out.append("rows ").append(delta >= 0 ? "+" : "").append(delta);
                out.append(a != null && b.hash.equals(a.hash) ? "" : " content changed");
            }
            out.append("; ");
        }
        return out.length() == 0 ? "no change" : out.toString();
    }
}
