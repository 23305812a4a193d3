package kaenlog.wire;

import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Partition names come from the network and become directory names, so they are checked before
 * they touch the file system: {@code topic-N} where the topic uses Kafka's legal characters
 * ({@code [a-zA-Z0-9._-]}, Kafka's {@code Topic.LEGAL_CHARS}) and N is the partition number written
 * one way only ({@code 0}, {@code 7}, {@code 12}; never {@code 00} or {@code 007}, or {@code a-0} and
 * {@code a-00} would be two partitions), the whole name at most 249 characters (Kafka's limit on a
 * topic name, which keeps a directory name under the file system's 255). A name like {@code ../x}
 * would otherwise let any client create directories outside the data directory.
 *
 * <p>Names that start with {@code __} are the broker's own ({@link #isInternal}): clients may not
 * produce to or fetch from them.
 */
public final class PartitionNames {
    /** Kafka's limit on a topic name's length (Topic.MAX_NAME_LENGTH); here it bounds the whole directory name. */
    public static final int MAX_NAME_LENGTH = 249;
    /** The prefix of Kafka's internal topics (__consumer_offsets, __transaction_state, __cluster_metadata). */
    public static final String INTERNAL_PREFIX = "__";
    private static final Pattern NAME = Pattern.compile("([A-Za-z0-9._-]+)-(0|[1-9][0-9]{0,8})");

    /** A partition name's two parts, Kafka's {@code TopicPartition}: topic {@code orders}, partition 0 is {@code orders-0}. */
    public record TopicPartition(String topic, int partition) {
        /** The partition's name, and its directory's: topic, dash, partition number. */
        public String name() {
            return PartitionNames.name(topic, partition);
        }
    }

    private PartitionNames() {
    }

    /** The name of {@code topic}'s partition {@code partition}: topic, dash, partition number (not checked). */
    public static String name(String topic, int partition) {
        return topic + "-" + partition;
    }

    /** The topic and partition number of a valid partition name; empty when {@link #problem} finds one. */
    public static Optional<TopicPartition> parse(String name) {
        if (problem(name) != null) {
            return Optional.empty();
        }
        Matcher m = NAME.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new TopicPartition(m.group(1), Integer.parseInt(m.group(2))));
    }

    /** The name's problem, or null when it is a valid partition name. */
    public static String problem(String name) {
        if (name.length() > MAX_NAME_LENGTH) {
            return "partition name '" + printable(name) + "' is " + name.length() + " characters long, over the"
                    + " maximum of " + MAX_NAME_LENGTH;
        }
        if (!NAME.matcher(name).matches()) {
            return "partition name '" + printable(name) + "' is not topic-N (letters, digits, '.', '_', '-', then"
                    + " a dash and the partition number without leading zeros)";
        }
        return null;
    }

    /**
     * True for the broker's own partitions, {@code __...} (chapter 7 keeps its producer ids in
     * {@code __producer_ids-0}). Kafka's {@code Topic.isInternal} names its internal topics one by one;
     * they all start with {@code __}, and kaen-log reserves the whole prefix.
     */
    public static boolean isInternal(String name) {
        return name.startsWith(INTERNAL_PREFIX);
    }

    /**
     * The directory of partition {@code name} under {@code dataDir}. Checks the name, and then the
     * resolved path too: the directory must sit directly under the data directory.
     */
    public static Path resolve(Path dataDir, String name) {
        String problem = problem(name);
        if (problem != null) {
            throw new MalformedMessageException(problem);
        }
        Path base = dataDir.toAbsolutePath().normalize();
        Path dir = base.resolve(name).normalize();
        if (!base.equals(dir.getParent())) {
            throw new MalformedMessageException("partition name '" + name + "' leaves the data directory");
        }
        return dir;
    }

    /** At most 60 characters of a hostile name, control characters shown as '?'. */
    private static String printable(String name) {
        String cut = name.length() > 60 ? name.substring(0, 60) + "..." : name;
        StringBuilder s = new StringBuilder();
        cut.codePoints().forEach(c -> s.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return s.toString();
    }
}
