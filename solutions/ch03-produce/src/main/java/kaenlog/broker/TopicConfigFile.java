package kaenlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every topic's own configs (Kafka's dynamic topic configs), kept in {@code topic-configs} in the data
 * directory, one {@code TOPIC KEY=VALUE} per line: the broker alone's record of them, where Kafka keeps
 * them in its metadata log (ZooKeeper mode: the znode {@code /config/topics/T}). Written as Kafka writes
 * its checkpoint files: to a temporary file, forced, then renamed over the old one, so a crash leaves
 * the old configs or the new ones, never half of them. A line the broker cannot read stops it from
 * starting (naming the file and the line): a topic whose {@code cleanup.policy=compact} or
 * {@code retention.ms=-1} were silently dropped would have its records deleted by retention.
 */
public final class TopicConfigFile {
    public static final String FILE_NAME = "topic-configs";

    private TopicConfigFile() {
    }

    /** Topic -> key -> value, as written last; empty when there is no file yet. */
    public static Map<String, Map<String, String>> read(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE_NAME);
        Map<String, Map<String, String>> topics = new TreeMap<>();
        if (!Files.exists(file)) {
            return topics;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n);
            int space = line.indexOf(' ');
            int eq = line.indexOf('=', space + 1);
            if (line.isBlank()) {
                continue;
            }
            if (space <= 0 || eq <= space + 1) {
                throw new IOException(file + " line " + (n + 1) + ": " + LogText.quote(line) + " is not TOPIC KEY=VALUE;"
                        + " the broker does not start without its topics' configs (restore the file, or remove the line)");
            }
            topics.computeIfAbsent(line.substring(0, space), t -> new TreeMap<>())
                    .put(line.substring(space + 1, eq), line.substring(eq + 1));
        }
        return topics;
    }

    /** Replaces the file with {@code topics}, atomically. */
    public static void write(Path dataDir, Map<String, Map<String, String>> topics) throws IOException {
        StringBuilder text = new StringBuilder();
        topics.forEach((topic, configs) -> configs.forEach((key, value) ->
                text.append(topic).append(' ').append(key).append('=').append(value).append('\n')));
        Path tmp = dataDir.resolve(FILE_NAME + ".tmp");
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
            out.force(true);
        }
        Files.move(tmp, dataDir.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
