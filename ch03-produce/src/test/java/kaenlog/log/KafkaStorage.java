package kaenlog.log;

import static kaenlog.testkit.KafkaFixtures.schedulerThatRunsNothing;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import kaenlog.testkit.KafkaFixtures.ManualTime;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidOffsetException;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.Records;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache;
import org.apache.kafka.storage.internals.log.LogAppendInfo;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogFileUtils;
import org.apache.kafka.storage.internals.log.OffsetPosition;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.LogSegmentOffsetOverflowException;
import org.apache.kafka.storage.internals.log.ProducerStateManager;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/**
 * Kafka 4.1.1's own storage (kafka-storage's {@code UnifiedLog} and {@code LogSegment}), the judge of
 * chapter 3's storage properties. Kafka's time stays at {@link LogFixtures#T0}, its scheduler runs
 * nothing (no background flush or deletion), its rolling by age is off and its timestamp limits are
 * open, so that only the rules a task teaches decide what it does: where offsets go, when a segment
 * rolls, where the index has entries, what a read returns, where recovery cuts.
 */
final class KafkaStorage implements AutoCloseable {
    private final UnifiedLog log;

    private KafkaStorage(UnifiedLog log) {
        this.log = log;
    }

    /** An empty Kafka log in {@code dir} (named like a partition, {@code t-0}) with these limits. */
    static KafkaStorage open(Path dir, int segmentBytes, int indexIntervalBytes) throws IOException {
        Files.createDirectories(dir);
        return new KafkaStorage(UnifiedLog.create(dir.toFile(), config(segmentBytes, indexIntervalBytes), 0L, 0L,
                schedulerThatRunsNothing(Scheduler.class), new BrokerTopicStats(), new ManualTime(LogFixtures.T0), 300_000,
                new ProducerStateManagerConfig(86_400_000, false), 600_000, new LogDirFailureChannel(1), true,
                Optional.empty()));
    }

    /**
     * A topic's configs as Kafka's {@code LogConfig} reads them. {@code segment.bytes} has a floor of 1 MiB
     * in Kafka 4; its tests set smaller segments through {@code internal.segment.bytes}, and so does this one.
     */
    static org.apache.kafka.storage.internals.log.LogConfig config(int segmentBytes, int indexIntervalBytes) {
        Map<String, Object> props = new HashMap<>();
        props.put(org.apache.kafka.storage.internals.log.LogConfig.INTERNAL_SEGMENT_BYTES_CONFIG, segmentBytes);
        props.put(TopicConfig.INDEX_INTERVAL_BYTES_CONFIG, indexIntervalBytes);
        props.put(TopicConfig.SEGMENT_MS_CONFIG, Long.MAX_VALUE); // never rolls by age
        props.put(TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, Long.MAX_VALUE);
        props.put(TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, Long.MAX_VALUE);
        props.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.MAX_VALUE);
        props.put(TopicConfig.FILE_DELETE_DELAY_MS_CONFIG, 0L);
        return new org.apache.kafka.storage.internals.log.LogConfig(props);
    }

    /** Empties the log (one Kafka log serves every try of a property) and gives it these limits. */
    KafkaStorage reset(int segmentBytes, int indexIntervalBytes) {
        log.truncateFullyAndStartAt(0, Optional.of(0L));
        log.updateConfig(config(segmentBytes, indexIntervalBytes));
        return this;
    }

    /** Appends a producer's batch as the leader of {@code leaderEpoch}: Kafka validates it and assigns its offsets. */
    LogAppendInfo appendAsLeader(ByteBuffer batch, int leaderEpoch) throws IOException {
        return log.appendAsLeader(MemoryRecords.readableRecords(batch.duplicate()), leaderEpoch);
    }

    /** Appends batches as they are, offsets included, as a follower does. */
    void appendAsFollower(ByteBuffer batches) {
        log.appendAsFollower(MemoryRecords.readableRecords(batches.duplicate()), Integer.MAX_VALUE);
    }

    /** Fills this (emptied) log with {@code kaenlog}'s batches, segment by segment, and its high watermark. */
    KafkaStorage mirror(Log kaenlog) throws IOException {
        List<Segment> segments = kaenlog.segments();
        for (int i = 0; i < segments.size(); i++) {
            Segment segment = segments.get(i);
            if (i > 0) {
                log.roll(Optional.of(segment.baseOffset()));
            }
            if (segment.size() > 0) {
                appendAsFollower(segment.window(0, segment.size()));
            }
        }
        log.updateHighWatermark(kaenlog.highWatermark());
        return this;
    }

    /**
     * Kafka's {@code UnifiedLog.read}: the whole batches of what it returns (its slice may end inside a
     * batch, which the reader drops), as one buffer.
     */
    ByteBuffer read(long fetchOffset, int maxBytes, FetchIsolation isolation, boolean minOneMessage) throws IOException {
        return wholeBatches(log.read(fetchOffset, maxBytes, isolation, minOneMessage).records);
    }

    static ByteBuffer wholeBatches(Records records) {
        List<ByteBuffer> batches = new ArrayList<>();
        int total = 0;
        for (RecordBatch batch : records.batches()) {
            ByteBuffer bytes = ByteBuffer.allocate(batch.sizeInBytes());
            if (batch instanceof FileChannelRecordBatch file) {
                file.writeTo(bytes);
            } else {
                ((org.apache.kafka.common.record.MutableRecordBatch) batch).writeTo(bytes);
            }
            batches.add(bytes.flip());
            total += batch.sizeInBytes();
        }
        ByteBuffer out = ByteBuffer.allocate(total);
        batches.forEach(out::put);
        return out.flip();
    }

    long logEndOffset() {
        return log.logEndOffset();
    }

    /** The base offset of every segment, the active one last. */
    List<Long> segmentBases() {
        return log.logSegments().stream().map(LogSegment::baseOffset).toList();
    }

    /** The bytes of every segment's file, oldest first. */
    List<byte[]> segmentFiles() throws IOException {
        List<byte[]> files = new ArrayList<>();
        for (LogSegment segment : log.logSegments()) {
            FileRecords records = segment.log();
            ByteBuffer bytes = ByteBuffer.allocate(records.sizeInBytes());
            records.readInto(bytes, 0);
            files.add(bytes.array());
        }
        return files;
    }

    @Override
    public void close() {
        log.close();
        log.removeLogMetrics();
    }

    /**
     * Kafka's {@code LogSegment} opened on a copy of a segment's {@code .log} file (its indexes made
     * afresh), for the rules that live in one segment: the sparse index of {@code LogSegment.append},
     * the cut of {@code LogSegment.recover}.
     */
    static LogSegment segment(Path dir, long baseOffset, int indexIntervalBytes) throws IOException {
        return LogSegment.open(dir.toFile(), baseOffset, config(1 << 30, indexIntervalBytes), new ManualTime(LogFixtures.T0),
                0, false);
    }

    /** What Kafka's recovery kept of a segment: its bytes and the offset index it rebuilt (null: see {@link #recover}). */
    record Recovered(byte[] kept, List<OffsetIndex.Entry> index) {
    }

    /**
     * Kafka's {@code LogSegment.recover} of the segment file {@code bytes} (base offset {@code baseOffset}),
     * in a directory of its own: every batch is checked ({@code ensureValid}: its size and CRC) and the file
     * is cut at the first that fails or is torn, the index rebuilt on the way. A batch whose offsets go back
     * or leap past what an index entry holds makes Kafka's recovery throw ({@code InvalidOffsetException},
     * {@code LogSegmentOffsetOverflowException}: its LogLoader then rebuilds or splits the segment); there the
     * judge keeps the batches that pass the same {@code ensureValid}, up to the first that fails, and no index.
     */
    static Recovered recover(Path dir, long baseOffset, byte[] bytes, int indexIntervalBytes) throws IOException {
        Files.createDirectories(dir);
        File file = LogFileUtils.logFile(dir.toFile(), baseOffset);
        Files.write(file.toPath(), bytes);
        TopicPartition partition = new TopicPartition("t", 0);
        LogSegment segment = segment(dir, baseOffset, indexIntervalBytes);
        try {
            ProducerStateManager producers = new ProducerStateManager(partition, dir.toFile(), 300_000,
                    new ProducerStateManagerConfig(86_400_000, false), new ManualTime(LogFixtures.T0));
            LeaderEpochFileCache epochs = new LeaderEpochFileCache(partition, new LeaderEpochCheckpointFile(
                    dir.resolve("leader-epoch-checkpoint").toFile(), new LogDirFailureChannel(1)),
                    schedulerThatRunsNothing(Scheduler.class));
            try {
                segment.recover(producers, epochs);
            } catch (InvalidOffsetException | LogSegmentOffsetOverflowException offsetsDoNotFollow) {
                return new Recovered(validPrefix(bytes), null);
            }
            List<OffsetIndex.Entry> index = new ArrayList<>();
            for (int i = 0; i < segment.offsetIndex().entries(); i++) {
                OffsetPosition entry = segment.offsetIndex().entry(i);
                index.add(new OffsetIndex.Entry(entry.offset, entry.position));
            }
            ByteBuffer kept = ByteBuffer.allocate(segment.size());
            segment.log().readInto(kept, 0);
            return new Recovered(kept.array(), index);
        } finally {
            segment.close();
        }
    }

    /** The batches of {@code bytes} that Kafka's batch iterator reads whole and its {@code ensureValid} passes, up to the first that fails. */
    private static byte[] validPrefix(byte[] bytes) {
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(bytes));
        int valid = 0;
        try {
            for (RecordBatch batch : records.batches()) {
                batch.ensureValid();
                valid += batch.sizeInBytes();
            }
        } catch (CorruptRecordException | InvalidRecordException stop) {
            // recovery stops at the first batch that fails, as LogSegment.recover does
        }
        return java.util.Arrays.copyOf(bytes, valid);
    }

    /**
     * Kafka's log for a property, opened at the first try that asks for it (a skeleton's TODO fails the
     * property before any of Kafka's classes is loaded), then emptied for each try.
     */
    static final class OnDemand implements AutoCloseable {
        private final LogGens.Tries tries;
        private KafkaStorage log;

        OnDemand(LogGens.Tries tries) {
            this.tries = tries;
        }

        KafkaStorage get() throws IOException {
            if (log == null) {
                log = open(tries.dir("kafka-0"), LogConfig.DEFAULT_SEGMENT_BYTES, LogConfig.DEFAULT_INDEX_INTERVAL_BYTES);
            }
            return log;
        }

        @Override
        public void close() {
            if (log != null) {
                log.close();
            }
        }
    }
}
