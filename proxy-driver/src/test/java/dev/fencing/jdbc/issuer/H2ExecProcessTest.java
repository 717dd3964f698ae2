package dev.fencing.jdbc.issuer;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import org.junit.jupiter.api.AfterEach;

/**
 * {@code fencing exec} on an H2 file database shared by several processes ({@code AUTO_SERVER=TRUE}: the test
 * JVM opens it first and serves it to the others).
 */
class H2ExecProcessTest extends ExecProcessTest {
    private Connection keeper;

    @Override
    String rawUrl(Path dir) {
        String url = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath() + ";AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000";
        try {
            keeper = DriverManager.getConnection(url);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return url;
    }

    @AfterEach
    void closeDatabase() throws SQLException {
        keeper.close();
    }
}
