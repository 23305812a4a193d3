package kaenlog.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The flags of one subcommand: {@code --name value} pairs, {@code --switch}es and positional
 * arguments. Anything unknown, missing or malformed is a {@link UsageException}, so every
 * subcommand rejects misuse the same way.
 */
public final class Flags {
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Map<String, List<String>> repeated = new LinkedHashMap<>();
    private final List<String> positional = new ArrayList<>();

    private Flags() {
    }

    /**
     * Parses {@code args}. {@code valued} lists the flags that take a value, {@code switches}
     * those that do not (names without the leading dashes).
     */
    public static Flags parse(List<String> args, Set<String> valued, Set<String> switches) throws UsageException {
        return parse(args, valued, switches, Set.of());
    }

    /**
     * The same, with flags that may be given more than once ({@code --header a=1 --header b=2}):
     * read them with {@link #all(String)}.
     */
    public static Flags parse(List<String> args, Set<String> valued, Set<String> switches, Set<String> repeatable)
            throws UsageException {
        Flags flags = new Flags();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--") || arg.equals("--")) {
                flags.positional.add(arg);
                continue;
            }
            String name = arg.substring(2);
            if (repeatable.contains(name)) {
                if (i + 1 >= args.size()) {
                    throw new UsageException("--" + name + " needs a value");
                }
                flags.repeated.computeIfAbsent(name, k -> new ArrayList<>()).add(args.get(++i));
                continue;
            }
            if (flags.values.containsKey(name)) {
                throw new UsageException("--" + name + " given twice");
            }
            if (switches.contains(name)) {
                flags.values.put(name, "true");
            } else if (valued.contains(name)) {
                if (i + 1 >= args.size()) {
                    throw new UsageException("--" + name + " needs a value");
                }
                flags.values.put(name, args.get(++i));
            } else {
                throw new UsageException("unknown flag --" + name);
            }
        }
        return flags;
    }

    public boolean has(String name) {
        return values.containsKey(name) || repeated.containsKey(name);
    }

    /** Every value of a repeatable flag, in the order given (none: an empty list). */
    public List<String> all(String name) {
        return List.copyOf(repeated.getOrDefault(name, List.of()));
    }

    public String string(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    /** A whole number in [min, max]; {@code fallback} when the flag is absent. */
    public long longValue(String name, long fallback, long min, long max) throws UsageException {
        String text = values.get(name);
        if (text == null) {
            return fallback;
        }
        long value;
        try {
            value = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " takes a whole number, not '" + text + "'");
        }
        if (value < min || value > max) {
            throw new UsageException("--" + name + " must be between " + min + " and " + max + ", not " + value);
        }
        return value;
    }

    public int intValue(String name, int fallback, int min, int max) throws UsageException {
        return (int) longValue(name, fallback, min, max);
    }

    /** The time a demo runs at: chapter code never reads a clock, so it comes in as a flag. */
    public long nowMs(long fallback) throws UsageException {
        return longValue("now-ms", fallback, 0, Long.MAX_VALUE / 2);
    }

    public List<String> positional() {
        return List.copyOf(positional);
    }

    /** Rejects positional arguments for subcommands that take none. */
    public Flags noPositional() throws UsageException {
        if (!positional.isEmpty()) {
            throw new UsageException("unexpected argument '" + positional.get(0) + "'");
        }
        return this;
    }
}
