package kaenlog.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * kaen-log's own topic requests (chapter 9's keys in {@link ApiKeys}), what {@code klog topics} sends:
 * <ul>
 * <li>CREATE_TOPICS (7): topic string · partitions int32 → {@link Answer};</li>
 * <li>DELETE_TOPICS (8): topic string → {@link Answer};</li>
 * <li>DESCRIBE_TOPICS (9): topic string ("" = every topic) → {@link Described}.</li>
 * </ul>
 * An answer carries its error by Kafka's name for it ({@code TOPIC_ALREADY_EXISTS}, ...: kaen-log's
 * own numbered table, {@link ErrorCode}, has no topic errors, and spelling them out keeps Kafka's
 * numbers off this port) and a message, empty when there is none.
 */
public final class Topics {
    /** At most this many topics, or missing partitions per topic, in an answer: a lying count allocates nothing. */
    public static final int MAX_ENTRIES = 100_000;
    /** The error name of an answer that is no error. */
    public static final String NONE = "NONE";

    private Topics() {
    }

    public record Create(String topic, int partitions) {
        public byte[] encode() {
            return new Wire.Writer().string(topic).int32(partitions).toByteArray();
        }

        public static Create decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Create request = new Create(in.string("topic"), in.int32("partitions"));
            in.end();
            return request;
        }
    }

    /** DELETE_TOPICS' and DESCRIBE_TOPICS' request: one topic name. */
    public record Named(String topic) {
        public byte[] encode() {
            return new Wire.Writer().string(topic).toByteArray();
        }

        public static Named decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Named request = new Named(in.string("topic"));
            in.end();
            return request;
        }
    }

    /** CREATE_TOPICS' and DELETE_TOPICS' answer: error name · message · the topic's partition count. */
    public record Answer(String error, String message, int partitions) {
        public byte[] encode() {
            return new Wire.Writer().string(error).string(message).int32(partitions).toByteArray();
        }

        public static Answer decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Answer answer = new Answer(in.string("error"), in.string("message"), in.int32("partitions"));
            in.end();
            return answer;
        }
    }

    /** One topic: its partition count (highest partition + 1) and the partitions below it with no directory. */
    public record Description(String name, int partitionCount, TreeSet<Integer> missing) {
        public boolean has(int partition) {
            return partition >= 0 && partition < partitionCount && !missing.contains(partition);
        }
    }

    /**
     * DESCRIBE_TOPICS' answer: error name · the broker's node id int32 · its replication factor int16
     * (1: one broker) · count int32 · count × (name · partitions int32 · missing count int32 · numbers).
     */
    public record Described(String error, int nodeId, short replicationFactor, List<Description> topics) {
        public byte[] encode() {
            Wire.Writer out = new Wire.Writer().string(error).int32(nodeId).int16(replicationFactor)
                    .int32(topics.size());
            for (Description t : topics) {
                out.string(t.name()).int32(t.partitionCount()).int32(t.missing().size());
                t.missing().forEach(out::int32);
            }
            return out.toByteArray();
        }

        public static Described decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            String error = in.string("error");
            int nodeId = in.int32("node_id");
            short replicationFactor = in.int16("replication_factor");
            int count = count(in.int32("count"), "count");
            List<Description> topics = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String name = in.string("name");
                int partitions = in.int32("partitions");
                int missingCount = count(in.int32("missing"), "missing");
                TreeSet<Integer> missing = new TreeSet<>();
                for (int m = 0; m < missingCount; m++) {
                    missing.add(in.int32("missing partition"));
                }
                topics.add(new Description(name, partitions, missing));
            }
            in.end();
            return new Described(error, nodeId, replicationFactor, topics);
        }
    }

    private static int count(int count, String field) {
        if (count < 0 || count > MAX_ENTRIES) {
            throw new MalformedMessageException(field + ": " + count + " entries, expected 0.." + MAX_ENTRIES);
        }
        return count;
    }
}
