package dev.fencing.sql;

import java.util.Locale;

/** The SQL dialect of the database behind the fencing driver; every dialect difference is decided here or in {@link EpochSql}. */
public enum Dialect {
    H2(true, false),
    POSTGRESQL(false, true),
    MARIADB(false, true),
    GENERIC(false, false);

    private final boolean foldsToUpperCase;
    private final boolean sharedRowLocks;

    Dialect(boolean foldsToUpperCase, boolean sharedRowLocks) {
        this.foldsToUpperCase = foldsToUpperCase;
        this.sharedRowLocks = sharedRowLocks;
    }

    /** The dialect for a JDBC URL of the underlying driver (for example {@code jdbc:postgresql://...}). */
    public static Dialect fromUrl(String jdbcUrl) {
        String url = jdbcUrl.toLowerCase(Locale.ROOT);
        if (url.startsWith("jdbc:h2:")) {
            return H2;
        }
        if (url.startsWith("jdbc:postgresql:") || url.startsWith("jdbc:pgsql:")) {
            return POSTGRESQL;
        }
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            return MARIADB;
        }
        return GENERIC;
    }

    /**
     * The dialect for a database product name as JDBC metadata reports it ({@code H2}, {@code PostgreSQL},
     * {@code MariaDB}, {@code MySQL}); more reliable than the URL when one driver wraps another.
     */
    /**
     * The dialect of a connection: by the product name its metadata reports, or by its URL when the name is not one
     * this library knows (a proxy or a driver that names itself differently).
     */
    public static Dialect of(String productName, String jdbcUrl) {
        Dialect dialect = fromProductName(productName);
        return dialect == GENERIC ? fromUrl(jdbcUrl) : dialect;
    }

    public static Dialect fromProductName(String productName) {
        String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (name.startsWith("h2")) {
            return H2;
        }
        if (name.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (name.contains("mariadb") || name.contains("mysql")) {
            return MARIADB;
        }
        return GENERIC;
    }

    /**
     * Whether the database commits an open transaction on its own before DDL and some settings (H2, MariaDB), so
     * the guard's epoch-row lock is gone after such a statement.
     */
    public boolean commitsImplicitly() {
        return this == H2 || this == MARIADB;
    }

    /**
     * A built-in comparison or concatenation operator as the fence's own statements write it. On PostgreSQL a
     * session's {@code search_path} can put a user's operator of the same name ahead of the built-in one, so the
     * fence names {@code pg_catalog}'s explicitly ({@code OPERATOR(pg_catalog.=)}).
     */
    public String op(String operator) {
        return this == POSTGRESQL ? "OPERATOR(pg_catalog." + operator + ")" : operator;
    }

    /** The lock clause a guard appends to its epoch-row read. */
    public String rowLockClause() {
        return sharedRowLocks ? (this == MARIADB ? "LOCK IN SHARE MODE" : "FOR SHARE") : "FOR UPDATE";
    }

    /**
     * What ends a query of the fence's own that returns at most one row: on MariaDB and MySQL {@code LIMIT 1}, which
     * overrides a session's {@code sql_select_limit} (set to 0, it would hide the epoch row from the guard; measured
     * on MariaDB 10.11); empty elsewhere.
     */
    public String oneRow() {
        return this == MARIADB ? " LIMIT 1" : "";
    }

    /**
     * The {@code LIMIT} that ends a query of the fence's own returning any number of rows: on MariaDB and MySQL the
     * largest, which overrides a session's {@code sql_select_limit} (see {@link #oneRow()}); empty elsewhere.
     */
    public String allRows() {
        return this == MARIADB ? " LIMIT 18446744073709551615" : "";
    }

    /**
     * Quotes a validated identifier the way the database folds an unquoted one, so {@code fencing_epoch}
     * names the same table quoted or not ({@code "FENCING_EPOCH"} on H2, {@code "fencing_epoch"} on PostgreSQL).
     */
    public String quoteIdentifier(String identifier) {
        if (this == MARIADB) {
            return '`' + identifier + '`';
        }
        String folded = foldsToUpperCase ? identifier.toUpperCase(Locale.ROOT) : identifier.toLowerCase(Locale.ROOT);
        return '"' + folded + '"';
    }

    /**
     * Quotes a name exactly as the database stores it (no folding), doubling the quote character inside it; for
     * names the database itself reported.
     */
    public String quoteExact(String name) {
        char quote = this == MARIADB ? '`' : '"';
        String q = String.valueOf(quote);
        return quote + name.replace(q, q + q) + quote;
    }
}
