package kaenlog.groups;

/** One entry of an offset commit: "in partition {@code partition} of {@code topic}, we are at {@code offset}". */
public record PartitionOffset(String topic, int partition, long offset) {
}
