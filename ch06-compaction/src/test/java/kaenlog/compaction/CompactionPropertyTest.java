package kaenlog.compaction;

import static kaenlog.compaction.LogFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.OffsetOutOfRangeException;
import kaenlog.log.Segment;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random keyed writes (tombstones and idempotent producers included), rolls, compactions,
 * retention by time and size and restarts, checked after every step against a plain in-memory
 * model of everything ever written. Seeded, so a failure replays exactly; bounded, so it is fast.
 * What must hold whatever the sequence:
 * <ul>
 * <li>every record left is the record the model wrote at that offset (no offset ever moves);</li>
 * <li>replaying the log gives each key's latest value, exactly as the model says: nothing lost,
 *     nothing resurrected after a tombstone or a retention;</li>
 * <li>right after a compaction, no key appears twice in the closed segments;</li>
 * <li>every batch left keeps its offsets and producer fields; every producer's last batch survives
 *     compaction, so its state rebuilds the same;</li>
 * <li>the log start offset only grows, and a fetch below it is out of range.</li>
 * </ul>
 */
@Order(10)
class CompactionPropertyTest {
    private static final int STEPS = 100;
    private static final long DELETE_RETENTION_MS = 5 * 60_000L;
    private static final int KEYS = 8;

    @TempDir
    Path root;

    /** One written record, as the model remembers it. */
    private record Written(long offset, String key, String value, long timestamp) {
        static Written of(Record r) {
            return new Written(r.offset(), Record.show(r.key()), r.value() == null ? null : Record.show(r.value()),
                    r.timestamp());
        }
    }

    /** An idempotent producer of the model: id, epoch, next sequence. */
    private static final class Producer {
        final long id;
        final short epoch;
        int nextSequence;

        Producer(long id, short epoch, int nextSequence) {
            this.id = id;
            this.epoch = epoch;
            this.nextSequence = nextSequence;
        }
    }

    /** The model: everything ever written, and every batch's original header fields. */
    private final SortedMap<Long, Written> written = new TreeMap<>();
    private final Map<Long, String> originalBatch = new HashMap<>();
    private final Map<Long, Long> lastBatchOfProducer = new HashMap<>();

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void randomWritesCompactionsAndRetentionAgreeWithAPlainModel(long seed) throws IOException {
        Random random = new Random(seed);
        Path dir = Files.createDirectories(root.resolve("seed-" + seed));
        LogConfig config = LogConfig.defaults().withSegmentBytes(700).withIndexIntervalBytes(200);
        List<Producer> producers = List.of(new Producer(1, (short) 0, 0), new Producer(2, (short) 4, 100),
                new Producer(3, (short) 1, Integer.MAX_VALUE - 5));
        Cleaner cleaner = new Cleaner(DELETE_RETENTION_MS);
        long clock = T0;
        long logStart = 0;
        Log log = Log.open(dir, config);
        try {
            for (int step = 0; step < STEPS; step++) {
                clock += 1_000 + random.nextInt(90_000);
                int dice = random.nextInt(100);
                String what;
                if (dice < 55) {
                    append(log, random, producers, clock, step);
                    continue;
                } else if (dice < 68) {
                    log.roll();
                    continue;
                } else if (dice < 85) {
                    cleaner.clean(log, clock);
                    assertNoKeyTwiceInClosedSegments(log, seed, step);
                    what = "compaction at " + clock;
                } else if (dice < 92) {
                    long retentionMs = 10 * 60_000L + random.nextInt(2 * 3_600_000);
                    Retention.apply(log, RetentionConfig.byTime(retentionMs), clock);
                    what = "retention.ms " + retentionMs;
                } else if (dice < 97) {
                    long limit = Retention.sizeInBytes(log) == 0 ? 0 : random.nextLong(Retention.sizeInBytes(log) + 1);
                    Retention.apply(log, RetentionConfig.bySize(limit), clock);
                    what = "retention.bytes " + limit;
                } else {
                    log.close();
                    log = Log.open(dir, config);
                    what = "restart";
                }
                String context = "seed " + seed + ", step " + step + " (" + what + ")";
                assertThat(log.logStartOffset()).as("%s: the log start offset only grows", context)
                        .isGreaterThanOrEqualTo(logStart);
                logStart = log.logStartOffset();
                assertAgreesWithTheModel(log, context);
            }
            cleaner.clean(log, clock);
            cleaner.clean(log, clock + DELETE_RETENTION_MS);
            assertAgreesWithTheModel(log, "seed " + seed + ", final cleanings");
            assertNoTombstoneLeftInClosedSegments(log, "seed " + seed);
        } finally {
            log.close();
        }
    }

    /** One batch of 1 to 4 records over a few keys, a tombstone one time in five, idempotent one time in three. */
    private void append(Log log, Random random, List<Producer> producers, long clock, int step) throws IOException {
        int count = 1 + random.nextInt(4);
        BatchBuilder builder = new BatchBuilder();
        Producer producer = random.nextInt(3) == 0 ? producers.get(random.nextInt(producers.size())) : null;
        if (producer != null) {
            builder.producer(producer.id, producer.epoch, producer.nextSequence);
            producer.nextSequence = BatchHeader.incrementSequence(producer.nextSequence, count);
        }
        for (int i = 0; i < count; i++) {
            String key = "k" + random.nextInt(KEYS);
            String value = random.nextInt(5) == 0 ? null : "v" + step + "." + i;
            builder.append(clock + i, key, value);
        }
        long base = log.append(builder.build()).firstOffset();
        RecordBatch appended = RecordBatch.decode(log.read(base, 1, FetchIsolation.LOG_END));
        appended.records().forEach(r -> written.put(r.offset(), Written.of(r)));
        originalBatch.put(base, producerFields(appended.header()));
        if (producer != null) {
            lastBatchOfProducer.put(producer.id, base);
        }
    }

    private void assertAgreesWithTheModel(Log log, String context) throws IOException {
        long logStart = log.logStartOffset();
        SortedMap<Long, Written> left = new TreeMap<>();
        Map<Long, BatchHeader> batches = new TreeMap<>();
        for (Segment segment : log.segments()) {
            for (RecordBatch batch : segment.batches()) {
                batches.put(batch.baseOffset(), batch.header());
                batch.records().forEach(r -> left.put(r.offset(), Written.of(r)));
            }
        }
        left.forEach((offset, record) -> assertThat(record)
                .as("%s: the record at %d must be the one written there: no offset moves, no content changes",
                        context, offset)
                .isEqualTo(written.get(offset)));
        assertThat(left.isEmpty() || left.firstKey() >= logStart)
                .as("%s: nothing is readable below the log start offset %d", context, logStart).isTrue();
        assertThat(replay(left.values()))
                .as("%s: replaying the log gives each key's latest value as the model has it (keys whose latest"
                        + " record is below the log start offset %d are gone; none comes back)", context, logStart)
                .isEqualTo(expectedLatest(logStart));
        batches.forEach((base, header) -> assertThat(producerFields(header))
                .as("%s: batch %d keeps its offsets and producer fields", context, base)
                .isEqualTo(originalBatch.get(base)));
        lastBatchOfProducer.forEach((producer, base) -> {
            if (base >= logStart) {
                assertThat(batches).as("%s: producer %d's last batch (%d) survives compaction, maybe empty",
                        context, producer, base).containsKey(base);
            }
        });
        if (logStart > 0) {
            assertThatThrownBy(() -> log.read(logStart - 1, Integer.MAX_VALUE, FetchIsolation.HIGH_WATERMARK))
                    .as("%s: a fetch at %d, below the log start offset, is out of range", context, logStart - 1)
                    .isInstanceOf(OffsetOutOfRangeException.class);
        }
        long nextOffset = written.isEmpty() ? 0 : written.lastKey() + 1;
        assertThat(log.logEndOffset()).as("%s: the log end offset is the model's next offset", context)
                .isEqualTo(nextOffset);
    }

    /** key -> "value@offset" for every key whose last record in {@code records} is a value. */
    private static Map<String, String> replay(Iterable<Written> records) {
        Map<String, String> latest = new TreeMap<>();
        for (Written w : records) {
            if (w.value() == null) {
                latest.remove(w.key());
            } else {
                latest.put(w.key(), w.value() + "@" + w.offset());
            }
        }
        return latest;
    }

    /** What replay must give: the model's latest record per key, if it is a value at or above the log start offset. */
    private Map<String, String> expectedLatest(long logStart) {
        Map<String, Written> latest = new TreeMap<>();
        written.values().forEach(w -> latest.put(w.key(), w));
        Map<String, String> expected = new TreeMap<>();
        latest.forEach((key, w) -> {
            if (w.value() != null && w.offset() >= logStart) {
                expected.put(key, w.value() + "@" + w.offset());
            }
        });
        return expected;
    }

    private static void assertNoKeyTwiceInClosedSegments(Log log, long seed, int step) throws IOException {
        Map<String, Long> seen = new HashMap<>();
        List<Segment> closed = log.segments().subList(0, log.segments().size() - 1);
        for (Segment segment : closed) {
            for (RecordBatch batch : segment.batches()) {
                for (Record r : batch.records()) {
                    Long earlier = seen.put(Record.show(r.key()), r.offset());
                    assertThat(earlier)
                            .as("seed %d, step %d: right after compaction key %s is at %d and again at %d in the closed"
                                    + " segments: only its latest record may stay", seed, step, Record.show(r.key()),
                                    earlier, r.offset())
                            .isNull();
                }
            }
        }
    }

    private static void assertNoTombstoneLeftInClosedSegments(Log log, String context) throws IOException {
        List<String> tombstones = new ArrayList<>();
        for (Segment segment : log.segments().subList(0, log.segments().size() - 1)) {
            for (RecordBatch batch : segment.batches()) {
                batch.records().stream().filter(Record::isTombstone).forEach(r -> tombstones.add(LogFixture.show(r)));
            }
        }
        assertThat(tombstones)
                .as("%s: a cleaning delete.retention.ms after the one that stamped them removes every tombstone",
                        context)
                .isEmpty();
    }

    private static String producerFields(BatchHeader h) {
        return h.baseOffset() + ".." + h.lastOffset() + " producer " + h.producerId() + "/" + h.producerEpoch()
                + " sequences " + h.baseSequence() + ".." + h.lastSequence();
    }
}
