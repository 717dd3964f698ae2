package dev.fencing.jdbc.cli;

import dev.fencing.jdbc.config.TokenText;
import picocli.CommandLine;

/** Reads {@code --token} as the driver reads a token: a positive 64-bit integer, decimal digits only. */
final class TokenConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
        long token = TokenText.parse(value);
        if (token < 0) {
            throw new CommandLine.TypeConversionException("'" + value
                    + "' is not a token: a token is a positive integer (1 to 9223372036854775807)");
        }
        return token;
    }
}
