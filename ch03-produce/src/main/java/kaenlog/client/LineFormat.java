package kaenlog.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.RecordHeader;
import kaenlog.cli.Flags;
import kaenlog.cli.UsageException;

/**
 * How {@code klog produce} turns a line into a record, with the flags of the tools people know:
 * kcat's {@code -K SEP} and {@code -H k=v} ({@code --key-separator}, {@code --header}), and Kafka's
 * console producer properties {@code parse.key} and {@code key.separator} (default a tab), given as
 * {@code --property parse.key=true}. A keyed line without the separator is refused, as Kafka's
 * console producer refuses it, rather than sent with a key nobody meant.
 */
record LineFormat(String keySeparator, List<RecordHeader> headers) {
    /** Kafka's console producer's default key.separator. */
    static final String DEFAULT_KEY_SEPARATOR = "\t";

    static LineFormat of(Flags flags) throws UsageException {
        boolean parseKey = flags.has("key-separator");
        String separator = flags.string("key-separator", DEFAULT_KEY_SEPARATOR);
        for (String property : flags.all("property")) {
            int eq = property.indexOf('=');
            String name = eq < 0 ? property : property.substring(0, eq);
            String value = eq < 0 ? "" : property.substring(eq + 1);
            switch (name) {
                case "parse.key" -> parseKey = Boolean.parseBoolean(value);
                case "key.separator" -> separator = value;
                default -> throw new UsageException("--property takes parse.key=true|false or key.separator=SEP,"
                        + " not '" + property + "'");
            }
        }
        if (parseKey && separator.isEmpty()) {
            throw new UsageException("the key separator must not be empty");
        }
        List<RecordHeader> headers = new ArrayList<>();
        for (String header : flags.all("header")) {
            int eq = header.indexOf('=');
            if (eq <= 0) {
                throw new UsageException("--header takes KEY=VALUE, not '" + header + "'");
            }
            headers.add(RecordHeader.of(header.substring(0, eq), header.substring(eq + 1)));
        }
        return new LineFormat(parseKey ? separator : null, List.copyOf(headers));
    }

    /** Appends the record of {@code line}; returns what is wrong with the line, or null. */
    String append(BatchBuilder builder, long nowMs, String line) {
        RecordHeader[] recordHeaders = headers.toArray(RecordHeader[]::new);
        if (keySeparator == null) {
            builder.append(nowMs, null, utf8(line), recordHeaders);
            return null;
        }
        int at = line.indexOf(keySeparator);
        if (at < 0) {
            return "no key separator '" + keySeparator + "' in '" + line + "'";
        }
        builder.append(nowMs, utf8(line.substring(0, at)), utf8(line.substring(at + keySeparator.length())),
                recordHeaders);
        return null;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
