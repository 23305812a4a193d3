package kaenlog.groups;

import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.Objects;

/**
 * The key of a committed offset: which group, for which topic partition. Kafka's
 * {@code OffsetCommitKey} has exactly these fields (group, topic, partition); in a compacted
 * log the key is the identity, so compaction keeps one commit per (group, topic, partition).
 * The bytes are kaen-log's own: group, topic as int16-length strings, then partition int32.
 */
public record OffsetCommitKey(String group, String topic, int partition) implements Comparable<OffsetCommitKey> {
    private static final Comparator<OffsetCommitKey> ORDER = Comparator.comparing(OffsetCommitKey::group)
            .thenComparing(OffsetCommitKey::topic).thenComparingInt(OffsetCommitKey::partition);

    public OffsetCommitKey {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(topic, "topic");
        Fields.checkLength(group, "group");
        Fields.checkLength(topic, "topic");
        if (partition < 0) {
            throw new IllegalArgumentException("partition must not be negative, not " + partition);
        }
    }

    public byte[] encode() {
        ByteBuffer out = ByteBuffer.allocate(Fields.sizeOf(group) + Fields.sizeOf(topic) + Integer.BYTES);
        Fields.putString(out, group);
        Fields.putString(out, topic);
        out.putInt(partition);
        return out.array();
    }

    public static OffsetCommitKey decode(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        String group = Fields.getString(in, "key.group");
        String topic = Fields.getString(in, "key.topic");
        int partition = Fields.getInt(in, "key.partition");
        Fields.end(in, "key");
        if (partition < 0) {
            throw new CorruptOffsetRecordException("key.partition", bytes.length - Integer.BYTES,
                    "partition " + partition + " is negative");
        }
        return new OffsetCommitKey(group, topic, partition);
    }

    @Override
    public int compareTo(OffsetCommitKey other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return "(" + group + ", " + topic + ", " + partition + ")";
    }
}
