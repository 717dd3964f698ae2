package dev.fencing.jdbc.testsupport;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;

/** A test driver for {@code jdbc:recording:<h2 url>} that records what it was given and delegates to H2. */
public final class RecordingDriver extends TestDriver {
    public static volatile String lastUrl;
    public static volatile Properties lastProperties;

    /** Registers the recording driver once with {@link java.sql.DriverManager}. */
    public static void register() throws SQLException {
        registerOnce(new RecordingDriver());
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        lastUrl = url;
        lastProperties = (Properties) info.clone();
        return new org.h2.Driver().connect("jdbc:h2:" + url.substring("jdbc:recording:".length()), info);
    }

    @Override
    public boolean acceptsURL(String url) {
        return url.startsWith("jdbc:recording:");
    }
}
