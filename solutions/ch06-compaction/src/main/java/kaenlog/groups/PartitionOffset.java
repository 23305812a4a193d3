package kaenlog.groups;

import java.util.Objects;

/**
 * One entry of an offset commit: "in partition {@code partition} of {@code topic}, we are at
 * {@code offset}", with the consumer's free-form {@code metadata} (Kafka's committed_metadata,
 * handed back by OffsetFetch; "" when it sent none).
 */
public record PartitionOffset(String topic, int partition, long offset, String metadata) {
    public PartitionOffset {
        Objects.requireNonNull(metadata, "metadata");
    }

    /** An entry without metadata. */
    public PartitionOffset(String topic, int partition, long offset) {
        this(topic, partition, offset, "");
    }
}
