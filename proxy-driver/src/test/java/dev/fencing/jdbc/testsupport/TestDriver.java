package dev.fencing.jdbc.testsupport;

import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Properties;
import java.util.logging.Logger;

/** What the tests' own JDBC drivers share: no properties, version 1.0, not compliant, registered only on request. */
public abstract class TestDriver implements Driver {
    /** Registers {@code driver} with {@link DriverManager} unless a driver of its class already is. */
    protected static synchronized void registerOnce(TestDriver driver) throws SQLException {
        for (Driver registered : Collections.list(DriverManager.getDrivers())) {
            if (registered.getClass() == driver.getClass()) {
                return;
            }
        }
        DriverManager.registerDriver(driver);
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
        return Logger.getLogger(getClass().getPackageName());
    }
}
