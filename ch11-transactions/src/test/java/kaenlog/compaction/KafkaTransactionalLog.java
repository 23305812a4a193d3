package kaenlog.compaction;

import static kaenlog.testkit.KafkaFixtures.schedulerThatRunsNothing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import kaenlog.testkit.KafkaFixtures.ManualTime;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.storage.internals.log.AbortedTxn;
import org.apache.kafka.storage.internals.log.LogCleanerManager;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.LogToClean;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.utils.Throttler;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/**
 * Kafka 4.1.1's own log holding a kaen-log log's batches, segment for segment, as a follower appends
 * them (its producer state and {@code .txnindex} files learn the transactions from them), and Kafka's
 * own cleaner run on it as its {@code LogCleaner} thread runs it: {@code cleanableOffsets} (the last
 * stable offset, the active segment), {@code LogToClean}, {@code Cleaner.doClean}. The judge of a
 * whole transactional cleaning.
 */
final class KafkaTransactionalLog implements AutoCloseable {
    private final UnifiedLog log;
    private final ManualTime time;

    private KafkaTransactionalLog(UnifiedLog log, ManualTime time) {
        this.log = log;
        this.time = time;
    }

    /** Kafka's copy of {@code ours}, in {@code dir}: the same batches, segments and high watermark. */
    static KafkaTransactionalLog copyOf(Log ours, Path dir, long deleteRetentionMs) throws IOException {
        Path partition = Files.createDirectories(dir.resolve("orders-0"));
        ManualTime time = new ManualTime(0);
        LogConfig config = new LogConfig(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
                TopicConfig.DELETE_RETENTION_MS_CONFIG, Long.toString(deleteRetentionMs),
                TopicConfig.SEGMENT_MS_CONFIG, Long.toString(Long.MAX_VALUE),
                TopicConfig.FILE_DELETE_DELAY_MS_CONFIG, "0"));
        UnifiedLog log = UnifiedLog.create(partition.toFile(), config, 0L, 0L, schedulerThatRunsNothing(Scheduler.class),
                new BrokerTopicStats(), time, 300_000, new ProducerStateManagerConfig(86_400_000, false), 600_000,
                new LogDirFailureChannel(1), true, Optional.empty());
        List<Segment> segments = ours.segments();
        for (int i = 0; i < segments.size(); i++) {
            if (i > 0) {
                log.roll(Optional.of(segments.get(i).baseOffset()));
            }
            for (ByteBuffer batch : Cleaner.rawBatches(segments.get(i))) {
                log.appendAsFollower(MemoryRecords.readableRecords(withLeaderEpoch(batch)), Integer.MAX_VALUE);
            }
        }
        log.updateHighWatermark(ours.highWatermark());
        return new KafkaTransactionalLog(log, time);
    }

    /**
     * A copy of {@code batch} whose partition leader epoch is 0 where it was -1 (a marker as chapter 11's
     * coordinator builds it, which a one-replica log keeps): Kafka's follower takes no batch without a
     * leader epoch. The field lies outside the CRC; the judge compares both sides so.
     */
    static ByteBuffer withLeaderEpoch(ByteBuffer batch) {
        ByteBuffer copy = ByteBuffer.allocate(batch.remaining()).put(batch.duplicate()).flip();
        if (copy.getInt(12) == -1) {
            copy.putInt(12, 0);
        }
        return copy;
    }

    /** One cleaning at {@code nowMs}, from the log start to the first uncleanable segment, as Kafka's cleaner thread runs it. */
    void clean(long nowMs) throws IOException {
        time.set(nowMs);
        long uncleanable = LogCleanerManager.cleanableOffsets(log, Optional.empty(), nowMs).firstUncleanableDirtyOffset();
        LogToClean cleanable = new LogToClean(log, log.logStartOffset(), uncleanable, false);
        if (cleanable.cleanableBytes() == 0) {
            return;
        }
        try {
            new org.apache.kafka.storage.internals.log.Cleaner(0, new SkimpyOffsetMap(64 * 1024), 64 * 1024,
                    10 * 1024 * 1024, 0.9, new Throttler(Double.MAX_VALUE, Long.MAX_VALUE, "cleaner-io", "bytes", time),
                    time, tp -> { }).doClean(cleanable, nowMs);
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException(e);
        }
    }

    /** Every batch of the log, by base offset, as Kafka's files hold it. */
    Map<Long, ByteBuffer> batches() {
        Map<Long, ByteBuffer> batches = new TreeMap<>();
        for (LogSegment segment : log.logSegments()) {
            for (RecordBatch batch : segment.log().batches()) {
                ByteBuffer bytes = ByteBuffer.allocate(batch.sizeInBytes());
                batch.writeTo(bytes);
                batches.put(batch.baseOffset(), bytes.flip());
            }
        }
        return batches;
    }

    /** Every segment's {@code .txnindex} entries, in order. */
    List<kaenlog.log.AbortedTxn> abortedTxns() {
        List<kaenlog.log.AbortedTxn> entries = new ArrayList<>();
        for (LogSegment segment : log.logSegments()) {
            for (AbortedTxn txn : segment.txnIndex().allAbortedTxns()) {
                entries.add(new kaenlog.log.AbortedTxn(txn.producerId(), txn.firstOffset(), txn.lastOffset(),
                        txn.lastStableOffset()));
            }
        }
        return entries;
    }

    @Override
    public void close() {
        log.close();
        log.removeLogMetrics();
    }
}
