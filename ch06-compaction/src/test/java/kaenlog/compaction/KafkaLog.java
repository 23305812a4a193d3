package kaenlog.compaction;

import static kaenlog.testkit.KafkaFixtures.schedulerThatRunsNothing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import kaenlog.testkit.KafkaFixtures.ManualTime;
import kaenlog.testkit.property.Scratch;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.storage.internals.log.CleanedTransactionMetadata;
import org.apache.kafka.storage.internals.log.CleanerStats;
import org.apache.kafka.storage.internals.log.LastRecord;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.utils.Throttler;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/**
 * Kafka 4.1.1's own log (kafka-storage's {@code UnifiedLog}) holding the same batches, byte for byte, in
 * the same segments as a kaen-log log: the judge of the chapter's properties. Retention asks it which
 * segments {@code UnifiedLog.deleteOldSegments} deletes; cleaning runs Kafka's {@code Cleaner} (its
 * {@code buildOffsetMap} and {@code cleanSegments}, {@code MemoryRecords.filterTo} inside) on it.
 *
 * <p>Batches go in as a follower appends them ({@code appendAsFollower}: offsets, timestamps and producer
 * fields as they are), and a segment ends where the test rolls it. Kafka's time is the test's
 * ({@code nowMs}), its scheduler runs nothing (no background flush, expiry or deletion), and its own
 * rolling by size or age is switched off, so the test alone decides where segments start.
 */
final class KafkaLog implements AutoCloseable {
    static final long DELETE_RETENTION_MS = 86_400_000L;

    private final UnifiedLog log;
    private final ManualTime time;

    private KafkaLog(UnifiedLog log, ManualTime time) {
        this.log = log;
        this.time = time;
    }

    /** An empty Kafka log in {@code dir} (a directory named like a partition, {@code t-0}). */
    static KafkaLog open(Path dir) {
        ManualTime time = new ManualTime(LogFixture.T0);
        try {
            Files.createDirectories(dir);
            UnifiedLog log = UnifiedLog.create(dir.toFile(), config(-1, -1), 0L, 0L, schedulerThatRunsNothing(Scheduler.class),
                    new BrokerTopicStats(), time, 300_000, new ProducerStateManagerConfig(86_400_000, false), 600_000,
                    new LogDirFailureChannel(1), true, Optional.empty());
            return new KafkaLog(log, time);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Empties this log and fills it with every segment of {@code kaenlog}: the same bytes, the same segment
     * bases, the same high watermark. One Kafka log serves every try of a property (emptied each time).
     */
    KafkaLog mirror(Log kaenlog) throws IOException {
        log.truncateFullyAndStartAt(0, Optional.of(0L));
        log.updateConfig(config(-1, -1));
        List<Segment> segments = kaenlog.segments();
        for (int i = 0; i < segments.size(); i++) {
            if (i > 0) {
                rollAt(segments.get(i).baseOffset());
            }
            for (ByteBuffer batch : Cleaner.rawBatches(segments.get(i))) {
                append(batch);
            }
        }
        log.updateHighWatermark(kaenlog.highWatermark());
        return this;
    }

    /** Empties this log and fills it with {@code segments} (batches with their offsets; the last is the active one). */
    KafkaLog mirror(List<List<ByteBuffer>> segments) throws IOException {
        log.truncateFullyAndStartAt(0, Optional.of(0L));
        log.updateConfig(config(-1, -1));
        for (int i = 0; i < segments.size(); i++) {
            if (i > 0) {
                rollAt(log.logEndOffset());
            }
            for (ByteBuffer batch : segments.get(i)) {
                append(batch);
            }
        }
        log.updateHighWatermark(log.logEndOffset());
        return this;
    }

    private static LogConfig config(long retentionMs, long retentionBytes) {
        Map<String, Object> props = new HashMap<>();
        props.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(retentionMs));
        props.put(TopicConfig.RETENTION_BYTES_CONFIG, Long.toString(retentionBytes));
        props.put(TopicConfig.DELETE_RETENTION_MS_CONFIG, Long.toString(DELETE_RETENTION_MS));
        props.put(TopicConfig.SEGMENT_MS_CONFIG, Long.toString(Long.MAX_VALUE)); // never rolls by age
        props.put(TopicConfig.SEGMENT_INDEX_BYTES_CONFIG, "4096");
        props.put(TopicConfig.FILE_DELETE_DELAY_MS_CONFIG, "0");
        return new LogConfig(props);
    }

    /** Appends one batch as it is, as a follower does (no new offsets, no new timestamps). */
    void append(ByteBuffer batch) {
        log.appendAsFollower(MemoryRecords.readableRecords(batch.duplicate()), Integer.MAX_VALUE);
    }

    /** A new active segment at {@code baseOffset} (at or past the log end). */
    void rollAt(long baseOffset) throws IOException {
        log.roll(Optional.of(baseOffset));
    }

    void highWatermark(long hw) throws IOException {
        log.updateHighWatermark(hw);
    }

    /** The base offset of every segment, the active one last. */
    List<Long> segmentBases() {
        return log.logSegments().stream().map(LogSegment::baseOffset).toList();
    }

    /**
     * The segments Kafka's {@code UnifiedLog.deletableSegments} lets a rule look at, oldest first: it stops
     * at the first segment that reaches the high watermark (asked with a rule that accepts every segment).
     */
    List<Long> deletableBases() throws IOException {
        return log.deletableSegments((segment, next) -> true).stream().map(LogSegment::baseOffset).toList();
    }

    /**
     * The base offsets Kafka's {@code UnifiedLog.deleteOldSegments} deletes at {@code nowMs} with these
     * {@code retention.ms} and {@code retention.bytes} (-1: no limit). When it deletes every segment it rolls
     * a new empty one first; that one is not in the list.
     */
    List<Long> deletedByRetention(long retentionMs, long retentionBytes, long nowMs) throws IOException {
        log.updateConfig(config(retentionMs, retentionBytes));
        time.set(nowMs);
        List<Long> before = segmentBases();
        log.deleteOldSegments();
        List<Long> after = segmentBases();
        return before.stream().filter(base -> !after.contains(base)).toList();
    }

    /** Kafka's cleaner, with a dedupe buffer far larger than any test's keys. */
    private org.apache.kafka.storage.internals.log.Cleaner cleaner() throws IOException {
        try {
            return new org.apache.kafka.storage.internals.log.Cleaner(0, new SkimpyOffsetMap(64 * 1024), 64 * 1024, 10 * 1024 * 1024, 0.9,
                    new Throttler(Double.MAX_VALUE, Long.MAX_VALUE, "cleaner-io", "bytes", time), time, tp -> { });
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IOException(e);
        }
    }

    /**
     * Kafka's {@code Cleaner.buildOffsetMap} over the segments between {@code start} and {@code end}, then
     * asked for {@code keys}: each key's offset ({@code -1} for a key it has not seen), the map's latest
     * offset and its number of keys.
     */
    KafkaOffsetMap buildOffsetMap(long start, long end, List<byte[]> keys) throws IOException {
        org.apache.kafka.storage.internals.log.Cleaner cleaner = cleaner();
        SkimpyOffsetMap map = (SkimpyOffsetMap) cleaner.offsetMap();
        try {
            cleaner.buildOffsetMap(log, start, end, map, new CleanerStats(time));
            return answers(map, keys);
        } catch (java.security.DigestException e) {
            throw new IOException(e);
        }
    }

    /** What Kafka's offset map answers. */
    record KafkaOffsetMap(Map<String, Long> offsets, long latestOffset, int size) {
        /** kaen-log's {@link OffsetMap} holding exactly these answers for {@code keys} (the ones asked). */
        OffsetMap asKaenLog(List<byte[]> keys) {
            OffsetMap map = new OffsetMap();
            for (byte[] key : keys) {
                long offset = offsets.get(LogShapes.text(key));
                if (offset != OffsetMap.NOT_FOUND) {
                    map.put(key, offset);
                }
            }
            map.updateLatestOffset(latestOffset);
            return map;
        }
    }

    /**
     * One cleaning round as Kafka's {@code Cleaner.doClean} runs it, at {@code nowMs}: the offset map of
     * the segments between {@code mapStart} and {@code mapEnd}, then every segment below {@code cleanEnd}
     * rewritten (one at a time, as kaen-log does), with {@code upperBound} as the round's upper bound
     * (KAFKA-17076). Returns what the map answered for {@code keys}, before the rewriting.
     */
    KafkaOffsetMap clean(long mapStart, long mapEnd, long cleanEnd, long upperBound, long nowMs, List<byte[]> keys)
            throws IOException {
        time.set(nowMs);
        org.apache.kafka.storage.internals.log.Cleaner cleaner = cleaner();
        SkimpyOffsetMap map = (SkimpyOffsetMap) cleaner.offsetMap();
        try {
            cleaner.buildOffsetMap(log, mapStart, mapEnd, map, new CleanerStats(time));
            KafkaOffsetMap answers = answers(map, keys);
            for (LogSegment segment : List.copyOf(log.logSegments(0, cleanEnd))) {
                cleaner.cleanSegments(log, List.of(segment), map, nowMs, new CleanerStats(time),
                        new CleanedTransactionMetadata(), Long.MAX_VALUE, upperBound);
            }
            return answers;
        } catch (java.security.DigestException e) {
            throw new IOException(e);
        }
    }

    private static KafkaOffsetMap answers(SkimpyOffsetMap map, List<byte[]> keys) throws java.security.DigestException {
        Map<String, Long> found = new java.util.LinkedHashMap<>();
        for (byte[] key : keys) {
            found.put(LogShapes.text(key), map.get(ByteBuffer.wrap(key)));
        }
        return new KafkaOffsetMap(found, map.latestOffset(), map.size());
    }

    /** Producer id -> the last offset of its last data batch, from Kafka's producer state ({@code lastRecordsOfActiveProducers}). */
    Map<Long, Long> lastOffsetsOfProducers() {
        Map<Long, Long> last = new HashMap<>();
        for (Map.Entry<Long, LastRecord> e : log.lastRecordsOfActiveProducers().entrySet()) {
            e.getValue().lastDataOffset.ifPresent(offset -> last.put(e.getKey(), offset));
        }
        return last;
    }

    /** Every batch of the log as Kafka holds it, base offset -> its bytes, segment by segment. */
    Map<Long, ByteBuffer> batches() throws IOException {
        Map<Long, ByteBuffer> batches = new java.util.TreeMap<>();
        for (LogSegment segment : log.logSegments()) {
            for (FileChannelRecordBatch batch : segment.log().batches()) {
                ByteBuffer bytes = ByteBuffer.allocate(batch.sizeInBytes());
                batch.writeTo(bytes);
                batches.put(batch.baseOffset(), bytes.flip());
            }
        }
        return batches;
    }

    /** The batches of each segment, oldest first: base offset of the segment -> its batches' bytes. */
    List<List<ByteBuffer>> segmentBatches() throws IOException {
        List<List<ByteBuffer>> segments = new ArrayList<>();
        for (LogSegment segment : log.logSegments()) {
            List<ByteBuffer> batches = new ArrayList<>();
            for (FileChannelRecordBatch batch : segment.log().batches()) {
                ByteBuffer bytes = ByteBuffer.allocate(batch.sizeInBytes());
                batch.writeTo(bytes);
                batches.add(bytes.flip());
            }
            segments.add(batches);
        }
        return segments;
    }

    @Override
    public void close() {
        log.close();
        log.removeLogMetrics();
    }

    /**
     * Kafka's log for a property, opened at the first try that asks for it: a skeleton's TODO fails the property
     * before any of Kafka's classes is loaded.
     */
    static final class OnDemand implements AutoCloseable {
        private final Scratch scratch;
        private KafkaLog log;

        OnDemand(Scratch scratch) {
            this.scratch = scratch;
        }

        KafkaLog get() throws IOException {
            if (log == null) {
                log = open(scratch.dir("t-0"));
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
