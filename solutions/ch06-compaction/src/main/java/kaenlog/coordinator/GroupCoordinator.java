package kaenlog.coordinator;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.BrokerExtension;
import kaenlog.wire.PartitionNames;
import kaenlog.groups.CommittedOffset;
import kaenlog.groups.GroupOffsetsLog;
import kaenlog.groups.OffsetCommitKey;
import kaenlog.groups.PartitionOffset;
import kaenlog.logmanager.CleanupConfigs;
import kaenlog.wire.OffsetFetch;

/**
 * The part of Kafka's group coordinator kaen-log has: committed offsets, kept in chapter 6's
 * {@link GroupOffsetsLog} on the broker's internal partition {@value #OFFSETS_PARTITION}. Kafka
 * creates {@code __consumer_offsets} with {@code cleanup.policy=compact} and
 * {@code offsets.topic.segment.bytes} = 100 MiB, so the cleaner keeps one commit per
 * (group, topic, partition); so does this extension. The handlers read and write that partition
 * directly, through its lock: the broker's own path, not a client's produce or fetch.
 */
public final class GroupCoordinator implements BrokerExtension {
    public static final String OFFSETS_PARTITION = "__consumer_offsets-0";
    /** Kafka's offsets.topic.segment.bytes. */
    public static final String OFFSETS_SEGMENT_BYTES = Integer.toString(100 * 1024 * 1024);

    @Override
    public Map<String, Map<String, String>> internalPartitions() {
        return Map.of(OFFSETS_PARTITION, Map.of(CleanupConfigs.CLEANUP_POLICY, CleanupConfigs.COMPACT,
                "segment.bytes", OFFSETS_SEGMENT_BYTES));
    }

    /** The key a commit of {@code partition} (topic-N) by {@code group} is stored under. */
    static OffsetCommitKey key(String group, String partition) {
        String problem = PartitionNames.problem(partition);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        if (group.isEmpty()) {
            throw new IllegalArgumentException("a group has a name");
        }
        PartitionNames.TopicPartition parsed = PartitionNames.parse(partition).orElseThrow();
        return new OffsetCommitKey(group, parsed.topic(), parsed.partition());
    }

    /** Appends one commit to the offsets log, stamped with the broker's time. */
    static void commit(BrokerContext broker, String group, String partition, long offset) throws IOException {
        OffsetCommitKey key = key(group, partition);
        if (offset < 0) {
            throw new IllegalArgumentException("a committed offset is 0 or more, not " + offset);
        }
        long nowMs = broker.nowMs();
        broker.partition(OFFSETS_PARTITION).locked(log -> new GroupOffsetsLog(log)
                .commit(group, List.of(new PartitionOffset(key.topic(), key.partition(), offset)), nowMs));
    }

    /** The group's latest commit of the partition, or {@link OffsetFetch#NO_OFFSET}. */
    static long committed(BrokerContext broker, String group, String partition) throws IOException {
        OffsetCommitKey key = key(group, partition);
        CommittedOffset committed = broker.partition(OFFSETS_PARTITION)
                .locked(log -> new GroupOffsetsLog(log).committedOffsets().get(key));
        return committed == null ? OffsetFetch.NO_OFFSET : committed.value().offset();
    }
}
