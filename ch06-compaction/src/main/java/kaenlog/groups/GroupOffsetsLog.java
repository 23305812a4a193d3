package kaenlog.groups;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
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
    /** Where a batch of commits or tombstones goes: the log itself, or (chapter 10) its partition's leader. */
    @FunctionalInterface
    public interface Appender {
        AppendInfo append(ByteBuffer batch) throws IOException;
    }

    private final Log log;
    private final Appender appender;

    public GroupOffsetsLog(Log log) {
        this(log, log::append);
    }

    /**
     * The offsets log {@code log}, read as it is, its batches handed to {@code appender} (chapter 10's
     * cluster appends an expiry's tombstones as the partition's leader, once its lock is released).
     */
    public GroupOffsetsLog(Log log, Appender appender) {
        this.log = log;
        this.appender = appender;
    }

    /**
     * One offset commit request of {@code group}: one batch, one record per partition, all
     * stamped {@code nowMs}, so a commit of several partitions is appended whole or not at all.
     */
    public AppendInfo commit(String group, List<PartitionOffset> offsets, long nowMs) throws IOException {
        return appender.append(commitBatch(group, offsets, nowMs));
    }

    /**
     * The batch {@link #commit} appends: one record per partition, all stamped {@code nowMs}. Chapter
     * 10's coordinator hands the same batch to the offsets partition's leader, which replicates it.
     */
    public static ByteBuffer commitBatch(String group, List<PartitionOffset> offsets, long nowMs) {
        if (offsets.isEmpty()) {
            throw new IllegalArgumentException("a commit names at least one partition");
        }
        BatchBuilder batch = new BatchBuilder();
        for (PartitionOffset p : offsets) {
            OffsetCommitKey key = new OffsetCommitKey(group, p.topic(), p.partition());
            batch.append(nowMs, key.encode(), new OffsetCommitValue(p.offset(), p.metadata(), nowMs).encode());
        }
        return batch.build();
    }

    /** One batch of tombstones for {@code keys} (a deletion of one group's offsets, chapter 10's replicated write). */
    public static ByteBuffer tombstoneBatch(List<OffsetCommitKey> keys, long nowMs) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a deletion names at least one key");
        }
        BatchBuilder batch = new BatchBuilder();
        keys.forEach(key -> batch.append(nowMs, key.encode(), null));
        return batch.build();
    }

    /** The size of the batch {@link #commit} would append: the coordinator refuses one over max.message.bytes. */
    public static int commitBytes(String group, List<PartitionOffset> offsets) {
        int bytes = BatchHeader.SIZE;
        for (PartitionOffset p : offsets) {
            // a record: its key and value, and at most 32 bytes of varints and attributes around them
            bytes += Fields.sizeOf(group) + Fields.sizeOf(p.topic()) + Integer.BYTES
                    + Long.BYTES + Fields.sizeOf(p.metadata()) + Long.BYTES + 32;
        }
        return bytes;
    }

    /**
     * Deletes a group's offset for one partition with a tombstone, a record with the key and a
     * null value (Kafka's OffsetDelete and offset expiry write {@code newOffsetCommitTombstoneRecord}).
     */
    public AppendInfo deleteOffset(String group, String topic, int partition, long nowMs) throws IOException {
        return deleteOffsets(List.of(new OffsetCommitKey(group, topic, partition)), nowMs);
    }

    /**
     * Tombstones for every key of {@code keys}, in batches of at most {@link #TOMBSTONE_BATCH_BYTES}
     * of keys (offset expiry may delete thousands at once); the answer covers all of them.
     */
    public AppendInfo deleteOffsets(List<OffsetCommitKey> keys, long nowMs) throws IOException {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a deletion names at least one key");
        }
        long first = -1;
        AppendInfo last = null;
        int count = 0;
        BatchBuilder batch = new BatchBuilder();
        int batchBytes = 0;
        for (OffsetCommitKey key : keys) {
            byte[] bytes = key.encode();
            batch.append(nowMs, bytes, null);
            batchBytes += bytes.length;
            if (batchBytes >= TOMBSTONE_BATCH_BYTES) {
                last = appender.append(batch.build());
                first = first < 0 ? last.firstOffset() : first;
                count += last.recordCount();
                batch = new BatchBuilder();
                batchBytes = 0;
            }
        }
        if (batchBytes > 0) {
            last = appender.append(batch.build());
            first = first < 0 ? last.firstOffset() : first;
            count += last.recordCount();
        }
        return new AppendInfo(first, last.lastOffset(), count);
    }

    /** How many bytes of keys one batch of tombstones holds at most (Kafka's offsets topic takes 1 MiB batches). */
    static final int TOMBSTONE_BATCH_BYTES = 512 * 1024;

    /**
     * A group's metadata record, or its tombstone when {@code value} is null (the group was deleted):
     * one batch of one record keyed {@link GroupMetadataKey}. Kafka's coordinator appends one after each
     * generation's assignment and when a group becomes Empty ({@code GroupMetadataManager.storeGroup}),
     * so that the next coordinator finds the members where they were; the value is chapter 9's.
     */
    public static ByteBuffer groupMetadataBatch(String group, byte[] value, long nowMs) {
        return new BatchBuilder().append(nowMs, new GroupMetadataKey(group).encode(), value).build();
    }

    /** The size of {@link #groupMetadataBatch}'s batch, at most: the coordinator refuses one over max.message.bytes. */
    public static int groupMetadataBytes(String group, byte[] value) {
        return BatchHeader.SIZE + Short.BYTES + Fields.sizeOf(group) + (value == null ? 0 : value.length) + 32;
    }

    /**
     * Every group's last metadata record (given code, beside the replay of offsets): the log read from
     * its first segment to its end, a group's later record replacing its earlier one, a tombstone
     * removing the group. The values are chapter 9's to read; offsets are skipped here.
     */
    public SortedMap<String, byte[]> groupMetadata() throws IOException {
        SortedMap<String, byte[]> groups = new TreeMap<>();
        for (Segment segment : log.segments()) {
            for (RecordBatch batch : segment.batches()) {
                if (batch.header().isControl()) {
                    continue;
                }
                for (Record record : batch.records()) {
                    if (record.key() == null || !GroupMetadataKey.isGroupMetadata(record.key())) {
                        continue;
                    }
                    String group = GroupMetadataKey.decode(record.key()).group();
                    if (record.isTombstone()) {
                        groups.remove(group);
                    } else {
                        groups.put(group, record.value());
                    }
                }
            }
        }
        return groups;
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
