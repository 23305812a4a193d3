package kaenlog.wire;

import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Partition names come from the network and become directory names, so they are checked before
 * they touch the file system, and this class is the one place that turns a topic and a partition
 * number into a name and back. A name is {@code topic-N}: the topic follows Kafka's
 * {@code Topic.validate} (the legal characters {@code [a-zA-Z0-9._-]}, {@code Topic.LEGAL_CHARS}; at
 * most 249 characters, {@code Topic.MAX_NAME_LENGTH}; not empty, {@code .} or {@code ..}), and N, the
 * partition number, follows the name's <em>last</em> dash, is at least 0 and fits an int32, written
 * one way only ({@code 0}, {@code 7}, {@code 12}; never {@code 00} or {@code 007}, or {@code a-0} and
 * {@code a-00} would be two directories for one partition). The whole name is at most 255
 * characters, the file system's limit on a directory name. So names and (topic, partition) pairs
 * map one to one: topic {@code alias} partition -5 is refused, where it would have been the
 * directory {@code alias--5} of topic {@code alias-} partition 5. A name like {@code ../x} would
 * otherwise let any client create directories outside the data directory.
 *
 * <p>Names that start with {@code __} are the broker's own ({@link #isInternal}): clients may not
 * produce to or fetch from them.
 */
public final class PartitionNames {
    /** Kafka's limit on a topic name's length (Topic.MAX_NAME_LENGTH). */
    public static final int MAX_NAME_LENGTH = 249;
    /** The longest directory name the file systems kaen-log runs on accept (ext4's and xfs's NAME_MAX). */
    public static final int MAX_DIRECTORY_NAME_LENGTH = 255;
    /** The prefix of Kafka's internal topics (__consumer_offsets, __transaction_state, __cluster_metadata). */
    public static final String INTERNAL_PREFIX = "__";
    /** A partition number written one way: 0, or digits without a leading zero (its int32 range checked apart). */
    private static final Pattern NUMBER = Pattern.compile("0|[1-9][0-9]{0,9}");

    /** A partition name's two parts, Kafka's {@code TopicPartition}: topic {@code orders}, partition 0 is {@code orders-0}. */
    public record TopicPartition(String topic, int partition) {
        /** The partition's name, and its directory's: topic, dash, partition number. */
        public String name() {
            return PartitionNames.name(topic, partition);
        }
    }

    private PartitionNames() {
    }

    /**
     * The name of {@code topic}'s partition {@code partition}: topic, dash, partition number. A topic
     * Kafka would refuse, or a negative partition number, is a {@link MalformedMessageException}.
     */
    public static String name(String topic, int partition) {
        String problem = problem(topic, partition);
        if (problem != null) {
            throw new MalformedMessageException(problem);
        }
        return topic + "-" + partition;
    }

    /** The topic and partition number of a valid partition name; empty when {@link #problem} finds one. */
    public static Optional<TopicPartition> parse(String name) {
        int dash = name.lastIndexOf('-');
        if (dash < 0) {
            return Optional.empty();
        }
        String topic = name.substring(0, dash);
        String number = name.substring(dash + 1);
        if (!NUMBER.matcher(number).matches() || Long.parseLong(number) > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        int partition = Integer.parseInt(number);
        return problem(topic, partition) == null ? Optional.of(new TopicPartition(topic, partition)) : Optional.empty();
    }

    /** The name's problem, or null when it is a valid partition name. */
    public static String problem(String name) {
        if (name.length() > MAX_DIRECTORY_NAME_LENGTH) {
            return "partition name '" + printable(name) + "' is " + name.length() + " characters long, over the"
                    + " maximum of " + MAX_DIRECTORY_NAME_LENGTH;
        }
        if (parse(name).isEmpty()) {
            return "partition name '" + printable(name) + "' is not topic-N (a topic of at most " + MAX_NAME_LENGTH
                    + " letters, digits, '.', '_', '-', not '.' or '..', then a dash and the partition number without"
                    + " leading zeros)";
        }
        return null;
    }

    /** Why {@code topic}'s partition {@code partition} has no name, or null when it has one. */
    public static String problem(String topic, int partition) {
        String topicProblem = topicProblem(topic);
        if (topicProblem != null) {
            return topicProblem;
        }
        if (partition < 0) {
            return "partition " + partition + " of topic '" + printable(topic) + "': a partition number is at least 0";
        }
        int length = topic.length() + 1 + Integer.toString(partition).length();
        if (length > MAX_DIRECTORY_NAME_LENGTH) {
            return "partition " + partition + " of topic '" + printable(topic) + "' would be a directory name of "
                    + length + " characters, over the maximum of " + MAX_DIRECTORY_NAME_LENGTH;
        }
        return null;
    }

    /** Why {@code topic} is not a topic name, Kafka's {@code Topic.validate}; null when it is one. */
    public static String topicProblem(String topic) {
        if (topic.isEmpty()) {
            return "a topic name is not empty";
        }
        if (topic.equals(".") || topic.equals("..")) {
            return "topic name '" + topic + "' is not allowed";
        }
        if (topic.length() > MAX_NAME_LENGTH) {
            return "topic name '" + printable(topic) + "' is " + topic.length() + " characters long, over the maximum of "
                    + MAX_NAME_LENGTH;
        }
        for (int i = 0; i < topic.length(); i++) {
            char c = topic.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
                    || c == '_' || c == '-';
            if (!legal) {
                return "topic name '" + printable(topic) + "' has a character other than ASCII letters, digits, '.',"
                        + " '_' and '-'";
            }
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
