package kaenlog.broker;

/**
 * A request would create a partition beyond {@code max.partitions}: it is answered UNKNOWN_PARTITION
 * (Kafka's UNKNOWN_TOPIC_OR_PARTITION: the partition does not exist, and this broker will not create
 * it), and nothing is created on disk.
 */
public final class PartitionLimitException extends RuntimeException {
    public PartitionLimitException(String message) {
        super(message);
    }
}
