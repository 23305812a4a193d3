package kaenlog.broker;

import java.nio.file.Path;
import java.util.regex.Pattern;
import kaenlog.produce.MalformedMessageException;

/**
 * Partition names come from the network and become directory names, so they are checked before
 * they touch the file system: {@code topic-N} where the topic uses Kafka's legal characters
 * ({@code [a-zA-Z0-9._-]}, at most 249 of them) and N is the partition number. A name like
 * {@code ../x} would otherwise let any client create directories outside the data directory.
 */
public final class PartitionNames {
    /** Kafka's limit on a topic name's length. */
    public static final int MAX_TOPIC_LENGTH = 249;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]+-[0-9]{1,9}");

    private PartitionNames() {
    }

    /** The name's problem, or null when it is a valid partition name. */
    public static String problem(String name) {
        if (!NAME.matcher(name).matches()) {
            return "partition name '" + printable(name) + "' is not topic-N (letters, digits, '.', '_', '-', then"
                    + " a dash and the partition number)";
        }
        if (name.lastIndexOf('-') > MAX_TOPIC_LENGTH) {
            return "partition name '" + name + "': the topic is longer than " + MAX_TOPIC_LENGTH + " characters";
        }
        return null;
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
