package dev.fencing.jdbc.cli;

import picocli.CommandLine;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads durations written as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h} or ISO-8601 ({@code PT30S}). */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(text);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            switch (m.group(2)) {
                case "ms":
                    return Duration.ofMillis(n);
                case "s":
                    return Duration.ofSeconds(n);
                case "m":
                    return Duration.ofMinutes(n);
                default:
                    return Duration.ofHours(n);
            }
        }
        try {
            return Duration.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw new CommandLine.TypeConversionException("'" + value
                    + "' is not a duration (write it like 500ms, 30s, 5m, 2h or PT30S)");
        }
    }
}
