package kaenlog.compaction;

import static kaenlog.compaction.LogFixture.HOUR;
import static kaenlog.compaction.LogFixture.T0;
import static kaenlog.compaction.LogFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchCrc;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.compaction.LogShapes.LogShape;
import kaenlog.testkit.Hex;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.testkit.property.Scratch;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 4: the cleaner's second pass, one batch at a time. A record stays if it is its key's
 * latest (a tombstone only until its batch's delete horizon); the batch is rewritten with chapter
 * 1's preserving builder, so its offsets and producer fields never change; a batch left with no
 * record goes, unless Kafka's rule keeps it as an empty header (RETAIN_EMPTY).
 */
@Order(4)
class BatchCleaningTest {
    static final long DELETE_RETENTION_MS = 24 * HOUR;
    static final long NOW = T0 + HOUR;

    private final Cleaner cleaner = new Cleaner(DELETE_RETENTION_MS);

    @TempDir
    Path dir;

    /** A map covering offsets up to {@code latestOffset}, with the given key -> latest offset entries. */
    private static OffsetMap map(long latestOffset, Object... keysAndOffsets) {
        OffsetMap map = new OffsetMap();
        for (int i = 0; i < keysAndOffsets.length; i += 2) {
            map.put(bytes((String) keysAndOffsets[i]), ((Number) keysAndOffsets[i + 1]).longValue());
        }
        map.updateLatestOffset(latestOffset);
        return map;
    }

    private static ByteBuffer build(BatchBuilder builder, long baseOffset) {
        return builder.build(baseOffset);
    }

    private static RecordBatch decode(ByteBuffer bytes) {
        return RecordBatch.decode(bytes.duplicate());
    }

    private Optional<RecordBatch> clean(ByteBuffer bytes, OffsetMap map, BatchRetention retention, long nowMs) {
        return cleaner.cleanBatch(decode(bytes), bytes, map, retention, nowMs).map(BatchCleaningTest::decode);
    }

    // ---- which records stay -------------------------------------------------------------------

    @Test
    void aRecordThatIsNotItsKeysLatestIsDropped() {
        RecordBatch batch = decode(build(LogFixture.batch(new BatchBuilder(), T0, "apple", "1", "apple", "2"), 0));
        OffsetMap map = map(1, "apple", 1);
        assertThat(Cleaner.shouldRetainRecord(batch.header(), batch.records().get(0), map, NOW))
                .as("apple at 0 is older than apple's latest (1): dropped").isFalse();
        assertThat(Cleaner.shouldRetainRecord(batch.header(), batch.records().get(1), map, NOW))
                .as("apple at 1 is apple's latest: kept (Kafka: record.offset() >= map.get(key))").isTrue();
    }

    @Test
    void aRecordPastTheMapsLatestOffsetIsKeptUnexamined() {
        RecordBatch batch = decode(build(LogFixture.batch(new BatchBuilder(), T0, "apple", "9"), 7));
        assertThat(Cleaner.shouldRetainRecord(batch.header(), batch.records().get(0), map(5, "apple", 3), NOW))
                .as("offset 7 is past the map's latest offset 5: the map never saw it, so it cannot know it is"
                        + " superseded; Kafka keeps it (pastLatestOffset)")
                .isTrue();
    }

    @Test
    void aRecordPastTheMapIsKeptBeforeItsKeyIsLookedAt() {
        RecordBatch batch = decode(new BatchBuilder().append(T0, (byte[]) null, bytes("x")).build(7));
        assertThat(Cleaner.shouldRetainRecord(batch.header(), batch.records().get(0), map(5, "apple", 3), NOW))
                .as("offset 7 is past the map's latest offset 5: it is kept before anything else is looked at, even"
                        + " without a key (Kafka's shouldRetainRecord checks pastLatestOffset first)")
                .isTrue();
    }

    @Test
    void aRecordWithoutAKeyIsDropped() {
        RecordBatch batch = decode(new BatchBuilder().append(T0, (byte[]) null, bytes("x")).build(0));
        assertThat(Cleaner.shouldRetainRecord(batch.header(), batch.records().get(0), map(0), NOW))
                .as("a record without a key has no place in a compacted log: Kafka's cleaner drops it")
                .isFalse();
    }

    @Test
    void aLatestTombstoneStaysWhileItsBatchHasNoDeleteHorizon() {
        RecordBatch batch = decode(build(LogFixture.batch(new BatchBuilder(), T0, "apple", null), 1));
        assertThat(Cleaner.shouldRetainRecord(batch.header(), batch.records().get(0), map(1, "apple", 1), Long.MAX_VALUE))
                .as("a tombstone no cleaning has stamped yet stays, however late it is: the first cleaning only"
                        + " starts its delete.retention.ms clock (KIP-534)")
                .isTrue();
    }

    @Test
    void aTombstoneStaysBeforeItsDeleteHorizonAndGoesAtIt() {
        long horizon = T0 + DELETE_RETENTION_MS;
        RecordBatch batch = decode(DeleteHorizon.stamp(
                build(LogFixture.batch(new BatchBuilder(), T0, "apple", null), 1), horizon));
        OffsetMap map = map(1, "apple", 1);
        assertThat(Cleaner.shouldRetainRecord(batch.header(), batch.records().get(0), map, horizon - 1))
                .as("one millisecond before the delete horizon the tombstone stays: a consumer reading the log"
                        + " from the start must still see the delete")
                .isTrue();
        assertThat(Cleaner.shouldRetainRecord(batch.header(), batch.records().get(0), map, horizon))
                .as("at the horizon it goes (Kafka keeps deletes only while currentTime < deleteHorizonMs)")
                .isFalse();
    }

    @Test
    void aDeleteHorizonNeverRemovesAValue() {
        long horizon = T0 + DELETE_RETENTION_MS;
        RecordBatch batch = decode(DeleteHorizon.stamp(
                build(LogFixture.batch(new BatchBuilder(), T0, "apple", "1", "pear", null), 0), horizon));
        assertThat(Cleaner.shouldRetainRecord(batch.header(), batch.records().get(0),
                map(1, "apple", 0, "pear", 1), horizon + HOUR))
                .as("the horizon is about deletes: apple's latest value stays after it").isTrue();
    }

    // ---- rewriting the batch ------------------------------------------------------------------

    @Test
    void aBatchThatKeepsEveryRecordIsWrittenBackByteForByte() {
        ByteBuffer original = build(LogFixture.batch(new BatchBuilder(), T0, "apple", "1", "pear", "1"), 0);
        byte[] expected = LogFixture.concat(List.of(original));
        ByteBuffer cleaned = cleaner.cleanBatch(decode(original), original, map(1, "apple", 0, "pear", 1),
                BatchRetention.DELETE_EMPTY, NOW).orElseThrow();
        byte[] actual = LogFixture.concat(List.of(cleaned));
        assertThat(actual)
                .as("nothing removed, no tombstone to stamp: the original batch, unchanged (Kafka writes the original"
                        + " batch)%n%s", Hex.firstDifference(expected, actual, i -> "byte " + i))
                .isEqualTo(expected);
    }

    @Test
    void aRewrittenBatchKeepsItsOffsetsAndItsProducerFields() {
        ByteBuffer original = build(LogFixture.batch(new BatchBuilder().producer(4242, (short) 5, 40), T0,
                "a", "1", "b", "1", "c", "1", "d", "1", "e", "1"), 100);
        OffsetMap map = map(200, "a", 150, "b", 101, "c", 102, "d", 103, "e", 190);

        RecordBatch cleaned = clean(original, map, BatchRetention.DELETE_EMPTY, NOW).orElseThrow();

        BatchHeader h = cleaned.header();
        assertThat(cleaned.records()).extracting(Record::offset)
                .as("a (100) and e (104) were superseded; b, c, d stay at their own offsets").containsExactly(101L, 102L, 103L);
        assertThat(h.baseOffset()).as("baseOffset stays 100 although record 100 is gone: no offset moves").isEqualTo(100L);
        assertThat(h.lastOffset()).as("lastOffset stays 104 although record 104 is gone (the 'On Compaction' rule)")
                .isEqualTo(104L);
        assertThat(h.producerId()).as("producerId preserved").isEqualTo(4242L);
        assertThat(h.producerEpoch()).as("producerEpoch preserved").isEqualTo((short) 5);
        assertThat(h.baseSequence()).as("baseSequence 40 preserved").isEqualTo(40);
        assertThat(h.lastSequence()).as("lastSequence 44 preserved: chapter 7's duplicate check needs it").isEqualTo(44);
        assertThat(h.recordCount()).as("recordCount counts what is left: 3").isEqualTo(3);
        assertThat(cleaned.records()).as("the kept records are the originals, byte for byte")
                .containsExactlyElementsOf(decode(original).records().subList(1, 4));
    }

    @Test
    void anEmptiedBatchGoesUnderDeleteEmpty() {
        ByteBuffer original = build(LogFixture.batch(new BatchBuilder(), T0, "apple", "1"), 0);
        assertThat(clean(original, map(5, "apple", 5), BatchRetention.DELETE_EMPTY, NOW))
                .as("its only record was superseded and nothing asks to keep the batch: it goes").isEmpty();
    }

    @Test
    void anEmptiedBatchIsA61ByteHeaderUnderRetainEmpty() {
        ByteBuffer original = build(LogFixture.batch(new BatchBuilder().producer(4242, (short) 5, 40), T0,
                "apple", "1", "pear", "1"), 10);
        ByteBuffer cleaned = cleaner.cleanBatch(decode(original), original, map(20, "apple", 15, "pear", 16),
                BatchRetention.RETAIN_EMPTY, NOW).orElseThrow();

        assertThat(cleaned.remaining()).as("an empty batch is the 61-byte header alone (Kafka's writeEmptyHeader)")
                .isEqualTo(BatchHeader.SIZE);
        assertThat(BatchCrc.isValid(cleaned)).as("with a valid CRC").isTrue();
        BatchHeader h = decode(cleaned).header();
        assertThat(h.recordCount()).as("recordCount 0").isZero();
        assertThat(h.baseOffset() + ".." + h.lastOffset()).as("it still spans 10..11").isEqualTo("10..11");
        assertThat(h.producerId() + "/" + h.producerEpoch() + "/" + h.baseSequence() + ".." + h.lastSequence())
                .as("producer 4242, epoch 5, sequences 40..41: the producer's last sequence survives")
                .isEqualTo("4242/5/40..41");
        assertThat(h.maxTimestamp()).as("maxTimestamp is the original's, as writeEmptyHeader keeps it").isEqualTo(T0);
    }

    @Test
    void anEmptiedBatchHoldingItsProducersLastOffsetStaysAndAnEarlierOneGoes() {
        ByteBuffer earlier = build(LogFixture.batch(new BatchBuilder().producer(4242, (short) 0, 0), T0,
                "apple", "1", "pear", "1"), 0);
        ByteBuffer last = build(LogFixture.batch(new BatchBuilder().producer(4242, (short) 0, 2), T0, "plum", "1"), 2);
        Map<Long, Long> lastOffsets = Map.of(4242L, 2L);
        OffsetMap map = map(9, "apple", 7, "pear", 8, "plum", 9);

        BatchRetention forEarlier = Cleaner.batchRetention(decode(earlier).header(), lastOffsets, 10);
        BatchRetention forLast = Cleaner.batchRetention(decode(last).header(), lastOffsets, 10);
        assertThat(clean(earlier, map, forEarlier, NOW))
                .as("batch 0..1 is emptied and is not producer 4242's last (that is 2..2): it goes, DELETE_EMPTY")
                .isEmpty();
        RecordBatch kept = clean(last, map, forLast, NOW).orElseThrow();
        assertThat(kept.header().recordCount() + " records, sequence " + kept.header().lastSequence())
                .as("batch 2..2 holds producer 4242's last data offset: Kafka keeps it empty (RETAIN_EMPTY) because"
                        + " 'it also contains the last sequence number for this producer'")
                .isEqualTo("0 records, sequence 2");
    }

    @Test
    void theLastBatchOfTheCleaningRoundStaysEvenWithoutAProducer() {
        ByteBuffer original = build(LogFixture.batch(new BatchBuilder(), T0, "apple", "1", "pear", "1"), 5);
        OffsetMap map = map(11, "apple", 10, "pear", 11);
        BatchRetention lastOfRound = Cleaner.batchRetention(decode(original).header(), Map.of(), 7);
        BatchRetention notLast = Cleaner.batchRetention(decode(original).header(), Map.of(), 9);

        assertThat(clean(original, map, lastOfRound, NOW)).map(b -> b.header().recordCount())
                .as("batch 5..6 ends where the cleaning round ends (7): kept as an empty header so the offset where"
                        + " the cleaned part ends is not lost (KAFKA-17076)")
                .contains(0);
        assertThat(clean(original, map, notLast, NOW))
                .as("when the round ends later (9), the same emptied batch goes").isEmpty();
    }

    // ---- the delete horizon -------------------------------------------------------------------

    @Test
    void keepingATombstoneStampsItsBatchWithADeleteHorizon() {
        ByteBuffer original = build(LogFixture.batch(new BatchBuilder(), T0, "apple", "1", "pear", null), 0);
        RecordBatch cleaned = clean(original, map(5, "apple", 5, "pear", 1), BatchRetention.DELETE_EMPTY, NOW)
                .orElseThrow();

        assertThat(DeleteHorizon.of(cleaned.header()))
                .as("the batch keeps a tombstone and had no horizon: it gets now + delete.retention.ms (KIP-534)")
                .hasValue(NOW + DELETE_RETENTION_MS);
        assertThat(cleaned.header().attributes() & BatchHeader.DELETE_HORIZON_FLAG_MASK)
                .as("attribute bit 0x40 says baseTimestamp holds the horizon").isEqualTo(0x40);
        assertThat(cleaned.records()).extracting(LogFixture::show)
                .as("the tombstone keeps its offset").containsExactly("1:pear=null");
        assertThat(cleaned.records().get(0).timestamp())
                .as("and its own timestamp: record timestamps are stored relative to the horizon now").isEqualTo(T0);
    }

    @Test
    void aTombstoneInABatchThatLosesNothingStillGetsItsHorizon() {
        ByteBuffer original = build(LogFixture.batch(new BatchBuilder(), T0, "pear", null), 3);
        RecordBatch cleaned = clean(original, map(3, "pear", 3), BatchRetention.DELETE_EMPTY, NOW).orElseThrow();
        assertThat(DeleteHorizon.of(cleaned.header()))
                .as("nothing was removed, but the tombstone's clock must start: the batch is rewritten with a horizon")
                .hasValue(NOW + DELETE_RETENTION_MS);
    }

    @Test
    void aBatchKeepsTheHorizonItAlreadyHasWhenRewrittenAgain() {
        long horizon = T0 + DELETE_RETENTION_MS;
        ByteBuffer stamped = DeleteHorizon.stamp(
                build(LogFixture.batch(new BatchBuilder(), T0, "apple", "1", "pear", null), 0), horizon);
        RecordBatch cleaned = clean(stamped, map(5, "apple", 5, "pear", 1), BatchRetention.DELETE_EMPTY, NOW + HOUR)
                .orElseThrow();
        assertThat(DeleteHorizon.of(cleaned.header()))
                .as("a later cleaning does not restart the clock: the horizon stamped first stays")
                .hasValue(horizon);
        assertThat(cleaned.records()).extracting(LogFixture::show).as("only the tombstone is left").containsExactly("1:pear=null");
    }

    @Test
    void anEmptiedBatchCarriesNoDeleteHorizon() {
        ByteBuffer stamped = DeleteHorizon.stamp(build(LogFixture.batch(new BatchBuilder().producer(7, (short) 0, 0),
                T0, "pear", null), 0), T0 + DELETE_RETENTION_MS);
        RecordBatch empty = clean(stamped, map(0, "pear", 0), BatchRetention.RETAIN_EMPTY, T0 + DELETE_RETENTION_MS)
                .orElseThrow();
        assertThat(empty.header().recordCount()).as("the tombstone passed its horizon and went").isZero();
        assertThat(DeleteHorizon.of(empty.header()))
                .as("the empty header has no horizon bit and baseTimestamp -1, as Kafka's writeEmptyHeader writes it")
                .isEmpty();
        assertThat(empty.header().baseTimestamp()).as("baseTimestamp -1: there is no first record").isEqualTo(-1L);
    }

    // ---- Kafka judges: any log cleaned twice, by Kafka 4.1.1's Cleaner and batch by batch by yours ----

    /**
     * What the property tries: a log, which segments the offset map covers (Kafka maps only the "dirty"
     * part, so records before it have keys the map does not know, and records after it are past its latest
     * offset), and when the second cleaning runs, relative to the delete horizon the first one stamps.
     */
    record CleaningCase(LogShape log, int mapFrom, int mapTo, long secondAfterHorizonMs) {
        @Override
        public String toString() {
            return log + "\n    the map covers segment numbers " + mapFrom + " to before " + mapTo
                    + "; cleaned at T0+3600000, then at the delete horizon " + (secondAfterHorizonMs >= 0 ? "+ " : "- ")
                    + Math.abs(secondAfterHorizonMs) + " ms";
        }
    }

    static Gen<CleaningCase> cleaningCases() {
        return c -> {
            LogShape log = LogShapes.logs(LogShapes::atT0).generate(c);
            int active = log.segments().size() - 1;
            int from = c.oneIn(2) ? 0 : c.belowInt(active);
            int to = c.oneIn(2) ? active : from + 1 + c.belowInt(active - from);
            long second = c.oneIn(2) ? Gens.longs(-1, 1).generate(c) : Gens.longs(-2 * HOUR, 2 * HOUR).generate(c);
            return new CleaningCase(log, from, to, second);
        };
    }

    @Test
    void kafkasCleanerKeepsTheSameRecordsAndWritesTheSameBatches() throws IOException {
        try (Scratch scratch = Scratch.in(dir); KafkaLog kafka = KafkaLog.open(scratch.dir("t-0"))) {
            Property.forAll(cleaningCases()).tries(30).shrinkBudget(LogShapes.SHRINKS).check(c -> {
                kafka.mirror(c.log().batchBytes());
                long first = NOW;
                cleanOnceAndCompare(kafka, c, first);
                cleanOnceAndCompare(kafka, c, first + DELETE_RETENTION_MS + c.secondAfterHorizonMs());
            });
        }
    }

    /** One round by Kafka's cleaner, and every batch it rewrote also cleaned by yours, with the same map and time. */
    private void cleanOnceAndCompare(KafkaLog kafka, CleaningCase c, long nowMs) throws IOException {
        List<Long> bases = kafka.segmentBases();
        long activeBase = bases.get(bases.size() - 1);
        List<List<ByteBuffer>> before = kafka.segmentBatches();
        List<byte[]> keys = List.of(LogShapes.KEYS);
        KafkaLog.KafkaOffsetMap kafkaMap = kafka.clean(bases.get(c.mapFrom()), bases.get(c.mapTo()), activeBase,
                activeBase, nowMs, keys);
        OffsetMap map = kafkaMap.asKaenLog(keys);
        Map<Long, Long> lastOffsets = kafka.lastOffsetsOfProducers();
        Map<Long, ByteBuffer> after = kafka.batches();
        String when = "cleaned at " + LogShapes.at(nowMs) + " with the offset map " + kafkaMap.offsets()
                + " covering up to " + kafkaMap.latestOffset();
        for (List<ByteBuffer> segment : before.subList(0, before.size() - 1)) {
            for (ByteBuffer bytes : segment) {
                RecordBatch batch = decode(bytes);
                BatchHeader h = batch.header();
                Optional<RecordBatch> kafkas = Optional.ofNullable(after.get(h.baseOffset())).map(BatchCleaningTest::decode);
                for (Record r : batch.records()) {
                    boolean kept = kafkas.map(k -> k.records().stream().anyMatch(x -> x.offset() == r.offset())).orElse(false);
                    Judge.agree("the record " + r.offset() + " " + LogShapes.text(r.key()) + "=" + LogShapes.text(r.value())
                                    + " of " + LogShapes.describe(batch) + ", " + when, "shouldRetainRecord",
                            Judge.Outcome.of(() -> Cleaner.shouldRetainRecord(h, r, map, nowMs)),
                            "Cleaner.shouldRetainRecord says", new Judge.Outcome(kept, null),
                            "a record past the map's latest offset stays unexamined; a record without a key goes;"
                                    + " otherwise only its key's latest stays (offset >= map.get(key)), and a tombstone only"
                                    + " while its batch has no delete horizon or now is before it");
                }
                BatchRetention retention = Cleaner.batchRetention(h, lastOffsets, activeBase);
                String input = LogShapes.describe(batch) + ", " + when + ", " + retention;
                Judge.Outcome cleaned = Judge.Outcome.of(() -> cleaner.cleanBatch(batch, bytes.duplicate(), map, retention,
                        nowMs));
                if (cleaned.refused()) {
                    Judge.agree(input, "batch", cleaned, "Cleaner.cleanSegments (MemoryRecords.filterTo) writes",
                            new Judge.Outcome(outcome(kafkas), null), rule(Optional.empty(), kafkas));
                }
                @SuppressWarnings("unchecked")
                Optional<ByteBuffer> yours = (Optional<ByteBuffer>) cleaned.value();
                Judge.agree(input, "batch", outcome(yours.map(BatchCleaningTest::decode)),
                        "Cleaner.cleanSegments (MemoryRecords.filterTo) writes", outcome(kafkas),
                        rule(yours.map(BatchCleaningTest::decode), kafkas));
                if (h.compressionCodec() != 0 && kafkas.isPresent() && !after.get(h.baseOffset()).equals(bytes)) {
                    continue; // a rebuilt compressed batch: the two compressors frame the same records differently
                }
                Judge.agree(input, "bytes", yours.map(BatchCleaningTest::hex).orElse("none"),
                        "Cleaner.cleanSegments writes", Optional.ofNullable(after.get(h.baseOffset()))
                                .map(BatchCleaningTest::hex).orElse("none"),
                        "a batch that loses nothing and needs no horizon is written back byte for byte; a rebuilt one"
                                + " keeps the original's attributes, base and last offset, producer fields and leader"
                                + " epoch, its records relative to the first kept one (or to the horizon)");
            }
        }
    }

    /** What a cleaning made of a batch, as the failure shows it. */
    private static String outcome(Optional<RecordBatch> batch) {
        return batch.map(b -> LogShapes.describe(b) + ", " + b.header().recordCount() + " record(s), baseTimestamp "
                + LogShapes.at(b.header().baseTimestamp()) + ", maxTimestamp " + LogShapes.at(b.header().maxTimestamp()))
                .orElse("nothing (the batch is gone)");
    }

    /** The rule a difference breaks, in the guide's words. */
    private static String rule(Optional<RecordBatch> yours, Optional<RecordBatch> kafkas) {
        if (yours.isPresent() != kafkas.isPresent() || yours.isPresent() && kafkas.isPresent()
                && yours.get().records().isEmpty() != kafkas.get().records().isEmpty()) {
            return "a batch that keeps a record stays; one left with no record follows the BatchRetention it is given:"
                    + " gone under DELETE_EMPTY, an empty 61-byte header under RETAIN_EMPTY";
        }
        if (yours.isPresent() && !yours.get().records().equals(kafkas.get().records())) {
            return "a record stays only if it is its key's latest (a tombstone until its delete horizon), unchanged, at"
                    + " its own offset";
        }
        if (yours.isPresent() && !DeleteHorizon.of(yours.get().header()).equals(DeleteHorizon.of(kafkas.get().header()))) {
            return "a kept tombstone without a horizon gets now + delete.retention.ms; an existing horizon is kept, never"
                    + " restarted; a batch without a kept tombstone gets none, and an empty header never has one";
        }
        return "a kept batch is rebuilt with the preserving builder: same base and last offset, producer id, epoch and"
                + " base sequence";
    }

    private static String hex(ByteBuffer bytes) {
        byte[] b = new byte[bytes.remaining()];
        bytes.duplicate().get(b);
        return HexFormat.of().formatHex(b);
    }
}
