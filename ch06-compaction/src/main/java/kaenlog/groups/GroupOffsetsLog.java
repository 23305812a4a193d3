package kaenlog.groups;

import java.io.IOException;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.log.AppendInfo;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import kaenlog.workbook.Todo;

/**
 * Where consumer groups keep their positions: a log of its own, Kafka's {@code __consumer_offsets}
 * (a compacted topic: the group coordinator creates it with {@code cleanup.policy=compact}). A
 * commit appends keyed records, key (group, topic, partition), value the offset; nothing is ever
 * updated in place. Reading the log from the start and letting each key's last record win gives
 * every group's latest commits; that is what a coordinator does when it takes the log over
 * (Kafka's {@code CoordinatorLoaderImpl} "reads records from a partition and replays them").
 * Compaction keeps exactly those last records, at their original offsets, so the log stays as
 * small as the number of (group, topic, partition)s instead of growing with every commit.
 */
public final class GroupOffsetsLog {
    private final Log log;

    public GroupOffsetsLog(Log log) {
        this.log = log;
    }

    /**
     * One offset commit request of {@code group}: one batch, one record per partition, all
     * stamped {@code nowMs}, so a commit of several partitions is appended whole or not at all.
     */
    public AppendInfo commit(String group, List<PartitionOffset> offsets, long nowMs) throws IOException {
        if (offsets.isEmpty()) {
            throw new IllegalArgumentException("a commit names at least one partition");
        }
        BatchBuilder batch = new BatchBuilder();
        for (PartitionOffset p : offsets) {
            OffsetCommitKey key = new OffsetCommitKey(group, p.topic(), p.partition());
            batch.append(nowMs, key.encode(), new OffsetCommitValue(p.offset(), "", nowMs).encode());
        }
        return log.append(batch.build());
    }

    /**
     * Deletes a group's offset for one partition with a tombstone, a record with the key and a
     * null value (Kafka's OffsetDelete and offset expiry write {@code newOffsetCommitTombstoneRecord}).
     */
    public AppendInfo deleteOffset(String group, String topic, int partition, long nowMs) throws IOException {
        byte[] key = new OffsetCommitKey(group, topic, partition).encode();
        return log.append(new BatchBuilder().append(nowMs, key, null).build());
    }

    /**
     * Every group's latest commits: the log replayed from its first segment to its end, each
     * key's later record replacing the earlier one, a tombstone removing the key. Each answer
     * keeps the log offset of the record it came from.
     */
    public SortedMap<OffsetCommitKey, CommittedOffset> committedOffsets() throws IOException {
        throw new Todo("ch06 task 6: replay the offsets log, the last record of each key wins (GroupOffsetsLogTest)");
    }

    public Log log() {
        return log;
    }
}
