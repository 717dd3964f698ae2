package dev.fencing.bench.jmh;

import java.lang.reflect.Proxy;
import java.sql.DatabaseMetaData;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The driver of {@code jdbc:stub:} URLs: connections to no database ({@link StubConnection}) that describe
 * themselves as PostgreSQL, so the fencing driver over them takes its PostgreSQL paths.
 */
final class StubDriver implements Driver {
    static final String URL = "jdbc:stub:postgresql";
    private static final StubDriver INSTANCE = new StubDriver();

    /** Registers the stub driver once with {@link DriverManager}. */
    static synchronized void register() throws SQLException {
        for (Driver driver : java.util.Collections.list(DriverManager.getDrivers())) {
            if (driver instanceof StubDriver) {
                return;
            }
        }
        DriverManager.registerDriver(INSTANCE);
    }

    @Override
    public StubConnection connect(String url, Properties info) {
        return acceptsURL(url) ? new StubConnection(metaData()) : null;
    }

    /** Database metadata is read only at connect, so a reflective proxy is cheap enough here. */
    private static DatabaseMetaData metaData() {
        return (DatabaseMetaData) Proxy.newProxyInstance(StubDriver.class.getClassLoader(),
                new Class<?>[] {DatabaseMetaData.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "getDatabaseProductName":
                            return "PostgreSQL";
                        case "getDatabaseProductVersion":
                            return "stub";
                        default:
                            Class<?> type = method.getReturnType();
                            if (type == boolean.class) {
                                return false;
                            }
                            return type == int.class ? 0 : type == long.class ? 0L : null;
                    }
                });
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith("jdbc:stub:");
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() {
        return Logger.getLogger("dev.fencing.bench.jmh");
    }
}
