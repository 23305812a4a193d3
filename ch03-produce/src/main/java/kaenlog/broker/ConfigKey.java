package kaenlog.broker;

import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * One config the broker understands, with Kafka's name and default: either a partition's (Kafka's
 * topic configs, e.g. {@code segment.bytes}, set for all partitions and overridden per partition)
 * or the broker's own (e.g. {@code log.retention.check.interval.ms}). Chapters declare their keys
 * through a {@link BrokerExtension}; {@code klog serve} refuses a key nobody declared.
 *
 * @param name         Kafka's name
 * @param defaultValue Kafka's default
 * @param scope        a partition's config or the broker's
 * @param chapter      the chapter that uses it
 * @param doc          one line for {@code klog configs}
 * @param check        the problem with a value, or null when it is fine
 */
public record ConfigKey(String name, String defaultValue, Scope scope, int chapter, String doc,
                        Function<String, String> check) {
    /** Whose config it is. */
    public enum Scope { PARTITION, BROKER }

    public ConfigKey {
        String problem = check.apply(defaultValue);
        if (problem != null) {
            throw new IllegalArgumentException(name + ": the default " + defaultValue + " is invalid: " + problem);
        }
    }

    /** A whole number in [min, max]. */
    public static ConfigKey whole(String name, long defaultValue, long min, long max, Scope scope, int chapter,
                                  String doc) {
        return new ConfigKey(name, Long.toString(defaultValue), scope, chapter, doc, text -> {
            try {
                long value = Long.parseLong(text);
                return value < min || value > max ? "must be between " + min + " and " + max : null;
            } catch (NumberFormatException e) {
                return "takes a whole number";
            }
        });
    }

    /** A number between 0 and 1. */
    public static ConfigKey ratio(String name, double defaultValue, Scope scope, int chapter, String doc) {
        return new ConfigKey(name, Double.toString(defaultValue), scope, chapter, doc, text -> {
            try {
                double value = Double.parseDouble(text);
                return value >= 0 && value <= 1 ? null : "must be between 0 and 1";
            } catch (NumberFormatException e) {
                return "takes a number between 0 and 1";
            }
        });
    }

    /** One of {@code allowed}. */
    public static ConfigKey choice(String name, String defaultValue, Set<String> allowed, Scope scope, int chapter,
                                   String doc) {
        return new ConfigKey(name, defaultValue, scope, chapter, doc,
                text -> allowed.contains(text) ? null : "takes one of " + new TreeSet<>(allowed));
    }
}
