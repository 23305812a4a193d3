package kaenlog.compaction;

import static kaenlog.compaction.LogFixture.HOUR;
import static kaenlog.compaction.LogFixture.T0;
import static kaenlog.compaction.LogFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchCrc;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.testkit.Hex;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

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
}
