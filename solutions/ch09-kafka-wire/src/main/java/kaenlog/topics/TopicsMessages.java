package kaenlog.topics;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.Wire;

/**
 * kaen-log's own topic requests (chapter 9's keys in {@code kaenlog.wire.ApiKeys}), what
 * {@code klog topics} sends:
 * <ul>
 * <li>CREATE_TOPICS (7): topic string · partitions int32 → {@link Answer};</li>
 * <li>DELETE_TOPICS (8): topic string → {@link Answer};</li>
 * <li>DESCRIBE_TOPICS (9): topic string ("" = every topic) → {@link Described}.</li>
 * </ul>
 * An answer carries its error by name ({@link TopicError}: Kafka's names, which kaen-log's port
 * spells out rather than numbering them in its own table) and a message (empty when none).
 */
public final class TopicsMessages {
    /** At most this many topics, or missing partitions per topic, in an answer: a lying count allocates nothing. */
    public static final int MAX_ENTRIES = 100_000;

    private TopicsMessages() {
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

    /** CREATE_TOPICS' and DELETE_TOPICS' answer: the error, why, and the topic's partition count. */
    public record Answer(TopicError error, String message, int partitions) {
        public static Answer of(TopicStore.Result result) {
            return new Answer(result.error(), result.message() == null ? "" : result.message(), result.partitions());
        }

        public byte[] encode() {
            return new Wire.Writer().string(error.name()).string(message).int32(partitions).toByteArray();
        }

        public static Answer decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Answer answer = new Answer(TopicError.named(in.string("error")), in.string("message"), in.int32("partitions"));
            in.end();
            return answer;
        }
    }

    /** DESCRIBE_TOPICS' answer: error · count int32 · count × (name · partitions int32 · missing count · numbers). */
    public record Described(TopicError error, List<TopicStore.Topic> topics) {
        public byte[] encode() {
            Wire.Writer out = new Wire.Writer().string(error.name()).int32(topics.size());
            for (TopicStore.Topic t : topics) {
                out.string(t.name()).int32(t.partitionCount()).int32(t.missing().size());
                t.missing().forEach(out::int32);
            }
            return out.toByteArray();
        }

        public static Described decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            TopicError error = TopicError.named(in.string("error"));
            int count = count(in.int32("count"), "count");
            List<TopicStore.Topic> topics = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String name = in.string("name");
                int partitions = in.int32("partitions");
                int missingCount = count(in.int32("missing"), "missing");
                TreeSet<Integer> missing = new TreeSet<>();
                for (int m = 0; m < missingCount; m++) {
                    missing.add(in.int32("missing partition"));
                }
                topics.add(new TopicStore.Topic(name, partitions, missing));
            }
            in.end();
            return new Described(error, topics);
        }
    }

    private static int count(int count, String field) {
        if (count < 0 || count > MAX_ENTRIES) {
            throw new MalformedMessageException(field + ": " + count + " entries, expected 0.." + MAX_ENTRIES);
        }
        return count;
    }
}
