package dev.fencing.jdbc;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The lines the driver's logger ({@code dev.fencing.jdbc}) writes while this is open, formatted as they would print. */
final class LogCapture extends Handler {
    private final List<String> lines = new CopyOnWriteArrayList<>();
    /** Held here: java.util.logging keeps loggers only weakly, and a collected one would forget the handler. */
    private final Logger logger = Logger.getLogger("dev.fencing.jdbc");

    private LogCapture() {
    }

    /** Starts capturing; {@link #close} stops. */
    static LogCapture start() {
        LogCapture capture = new LogCapture();
        capture.logger.addHandler(capture);
        return capture;
    }

    /** The lines captured so far. */
    List<String> lines() {
        return lines;
    }

    @Override
    public void publish(LogRecord record) {
        lines.add(new java.util.logging.SimpleFormatter().formatMessage(record));
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
